package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ZooKeeperProcessTest {
  @TempDir
  Path base;

  private static CuratorFramework client(ZooKeeperProcess server) {
    CuratorFramework c = CuratorFrameworkFactory.builder().connectString(server.connectString())
        .sessionTimeoutMs(4000).connectionTimeoutMs(1000).retryPolicy(new RetryNTimes(3, 100)).build();
    c.start();
    return c;
  }

  @Test
  void pauseHoldsACallAndResumeLetsItAnswer() throws Exception {
    long t0 = System.nanoTime();
    try (ZooKeeperProcess server = ZooKeeperProcess.start(base)) {
      System.out.printf("zookeeper start %d ms%n", (System.nanoTime() - t0) / 1_000_000);
      assertThat(server.url()).isEqualTo("zookeeper://127.0.0.1:" + server.port());
      try (CuratorFramework c = client(server)) {
        c.create().forPath("/a", "1".getBytes(StandardCharsets.UTF_8));
        server.pause();
        CompletableFuture<Object> call;
        try {
          call = CompletableFuture.supplyAsync(() -> {
            try {
              return c.getData().forPath("/a");
            } catch (Exception e) {
              throw new RuntimeException(e);
            }
          });
          assertThatThrownBy(() -> call.get(1, TimeUnit.SECONDS)).isInstanceOf(TimeoutException.class);
        } finally {
          server.resume();
        }
        byte[] data = Poll.until(Duration.ofSeconds(10), () -> c.getData().forPath("/a"));
        assertThat(new String(data, StandardCharsets.UTF_8)).isEqualTo("1");
      }
    }
    assertThat(Files.list(base)).isEmpty();
  }

  @Test
  void restartKeepsAPersistentNode() throws Exception {
    try (ZooKeeperProcess server = ZooKeeperProcess.start(base); CuratorFramework c = client(server)) {
      c.create().forPath("/kept", "v".getBytes(StandardCharsets.UTF_8));
      long pid = server.pid();
      long t0 = System.nanoTime();
      server.restart();
      System.out.printf("zookeeper restart %d ms%n", (System.nanoTime() - t0) / 1_000_000);
      assertThat(server.pid()).isNotEqualTo(pid);
      byte[] data = Poll.until(Duration.ofSeconds(10), () -> c.getData().forPath("/kept"));
      assertThat(new String(data, StandardCharsets.UTF_8)).isEqualTo("v");
    }
  }
}
