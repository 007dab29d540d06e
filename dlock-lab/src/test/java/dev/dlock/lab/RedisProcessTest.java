package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisProcessTest {
  @TempDir
  Path base;

  /** Runs {@code use} on a new connection to {@code server}, with a 300 ms command timeout. */
  static String withClient(RedisProcess server, java.util.function.Function<RedisCommands<String, String>, String> use) {
    RedisURI uri = RedisURI.create(server.url());
    uri.setTimeout(Duration.ofMillis(300));
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      return use.apply(c.sync());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }
  }

  @Test
  void pauseTimesOutAClientAndResumeLetsItAnswer() throws Exception {
    long t0 = System.nanoTime();
    try (RedisProcess server = RedisProcess.start(base, RedisProcess.Persistence.NONE)) {
      System.out.printf("redis start %d ms%n", (System.nanoTime() - t0) / 1_000_000);
      assertThat(server.url()).isEqualTo("redis://127.0.0.1:" + server.port());
      assertThat(ProcessHandle.of(server.pid()).orElseThrow().info().command().orElse("")).contains("redis-server");
      withClient(server, r -> {
        assertThat(r.ping()).isEqualTo("PONG");
        assertThat(r.set("k", "v")).isEqualTo("OK");
        server.pause();
        try {
          assertThatThrownBy(r::ping).isInstanceOf(RedisCommandTimeoutException.class);
        } finally {
          server.resume();
        }
        try {
          assertThat(Poll.until(Duration.ofSeconds(5), r::ping)).isEqualTo("PONG");
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
        return null;
      });
    }
    assertThat(Files.list(base)).isEmpty();
  }

  @Test
  void restartWithoutPersistenceLosesAKey() {
    try (RedisProcess server = RedisProcess.start(base, RedisProcess.Persistence.NONE)) {
      withClient(server, r -> r.set("k", "v"));
      long pid = server.pid();
      long t0 = System.nanoTime();
      server.restart();
      System.out.printf("redis restart (none) %d ms%n", (System.nanoTime() - t0) / 1_000_000);
      assertThat(server.pid()).isNotEqualTo(pid);
      assertThat(Procs.ended(pid)).isTrue();
      assertThat(withClient(server, r -> r.get("k"))).isNull();
    }
  }

  @Test
  void restartWithAofAlwaysKeepsAKey() {
    try (RedisProcess server = RedisProcess.start(base, RedisProcess.Persistence.AOF_ALWAYS)) {
      withClient(server, r -> r.set("k", "v"));
      long t0 = System.nanoTime();
      server.restart();
      System.out.printf("redis restart (aof) %d ms%n", (System.nanoTime() - t0) / 1_000_000);
      assertThat(withClient(server, r -> r.get("k"))).isEqualTo("v");
    }
  }

  @Test
  void restartOfAPausedServerStartsItAgain() {
    try (RedisProcess server = RedisProcess.start(base, RedisProcess.Persistence.NONE)) {
      server.pause();
      server.restart();
      assertThat(withClient(server, r -> r.ping())).isEqualTo("PONG");
    }
  }

  @Test
  void startManyGivesTheRedlockUrl() {
    long t0 = System.nanoTime();
    List<RedisProcess> servers = RedisProcess.startMany(base, 5, RedisProcess.Persistence.NONE);
    System.out.printf("redis start x5 %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    try {
      assertThat(servers).hasSize(5);
      assertThat(RedisProcess.redlockUrl(servers)).startsWith("redlock://127.0.0.1:" + servers.get(0).port() + ",")
          .endsWith(",127.0.0.1:" + servers.get(4).port());
      for (RedisProcess s : servers) {
        assertThat(withClient(s, r -> r.ping())).isEqualTo("PONG");
      }
    } finally {
      servers.forEach(RedisProcess::close);
    }
    assertThatThrownBy(() -> RedisProcess.startMany(base, 0, RedisProcess.Persistence.NONE))
        .hasMessageContaining("was 0");
  }
}
