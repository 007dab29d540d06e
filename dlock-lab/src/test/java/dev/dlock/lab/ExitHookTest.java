package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExitHookTest {
  @TempDir
  Path base;

  @Test
  void aLabThatExitsWithoutClosingLeavesNoServerRunning() throws Exception {
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), ExitHookTest.class.getName(), base.toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes()).trim();
    assertThat(p.waitFor()).as(out).isZero();
    String[] pids = out.substring(out.lastIndexOf("pids ") + 5).split(" ");
    for (String pid : pids) {
      Poll.until(Duration.ofSeconds(10), () -> Procs.ended(Long.parseLong(pid)) ? true : fail(pid));
    }
  }

  private static boolean fail(String pid) {
    throw new IllegalStateException(pid + " still runs");
  }

  /** A lab that starts a Redis and a ZooKeeper, then ends without closing them. */
  public static void main(String[] args) {
    Path base = Path.of(args[0]);
    RedisProcess redis = RedisProcess.start(base, RedisProcess.Persistence.NONE);
    ZooKeeperProcess zk = ZooKeeperProcess.start(base);
    System.out.println("pids " + String.join(" ", List.of(Long.toString(redis.pid()), Long.toString(zk.pid()))));
  }
}
