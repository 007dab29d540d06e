package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * F7's clock, on real processes: a jump written mid-run is seen at once by a redis-server (a key
 * with a PX expiry vanishes) and by a JVM (its wall clock steps, its monotonic clock and its timed
 * waits do not). These fail, naming Debian's faketime package, where libfaketime is missing.
 */
class FakeClockTest {
  @TempDir
  Path base;

  @Test
  void aRedisKeyWithPxVanishesWhenTheServersClockJumpsPastIt() {
    FakeClock clock = FakeClock.create(base.resolve("clock"));
    try (RedisProcess server = RedisProcess.start(base, RedisProcess.Persistence.NONE, clock.environment())) {
      RedisURI uri = RedisURI.create(server.url());
      uri.setTimeout(Duration.ofSeconds(10)); // a loaded machine; nothing here waits on a timeout
      RedisClient client = RedisClient.create(uri);
      try (StatefulRedisConnection<String, String> c = client.connect()) {
        RedisCommands<String, String> r = c.sync();
        r.set("short", "v", SetArgs.Builder.px(60_000));
        r.set("long", "v", SetArgs.Builder.px(600_000));
        long before = Long.parseLong(r.time().get(0));
        assertThat(r.exists("short")).as("a key a minute from expiry").isEqualTo(1);
        clock.jump(Duration.ofMinutes(2));
        assertThat(r.exists("short")).as("the key, at the jump two minutes ahead").isZero();
        assertThat(r.exists("long")).as("a key ten minutes from expiry, at the same jump").isEqualTo(1);
        assertThat(r.pttl("long")).as("what is left of its ten minutes").isBetween(450_000L, 480_000L);
        assertThat(Long.parseLong(r.time().get(0)) - before).as("the server's TIME, in seconds").isBetween(120L, 150L);
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      }
    }
  }

  @Test
  void aJvmsWallClockJumpsWhileItsMonotonicClockAndTimedWaitsGoOn() throws Exception {
    FakeClock clock = FakeClock.create(base.resolve("clock"));
    ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        ClockProbe.class.getName()).redirectError(base.resolve("probe.err").toFile());
    builder.environment().putAll(clock.environment());
    Process probe = builder.start();
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8))) {
      long[] first = ask(probe, out);
      clock.jump(Duration.ofHours(1));
      long[] second = ask(probe, out);
      long wall = second[0] - first[0];
      long mono = TimeUnit.NANOSECONDS.toMillis(second[1] - first[1]);
      assertThat(wall).as("wall clock step, ms").isBetween(3_600_000L, 3_600_000L + 30_000);
      assertThat(mono).as("monotonic clock between the two probes, ms").isBetween(0L, 30_000L);
      assertThat(wall - mono).as("the wall clock's step beyond the monotonic time, ms")
          .isBetween(3_599_000L, 3_601_000L);
      for (long[] p : List.of(first, second)) {
        assertThat(TimeUnit.NANOSECONDS.toMillis(p[2]))
            .as("a 20 ms parkNanos, ms (libfaketime 0.9.10 returned at once)").isGreaterThanOrEqualTo(19L);
      }
    } finally {
      probe.destroyForcibly();
      probe.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aJumpGoesForwardAndAddsUp() {
    FakeClock clock = FakeClock.create(base.resolve("clock"));
    clock.jump(Duration.ofMillis(1500));
    clock.jump(Duration.ofSeconds(3));
    assertThat(clock.offset()).isEqualTo(Duration.ofMillis(4500));
    assertThat(clock.environment()).containsEntry("FAKETIME_NO_CACHE", "1")
        .containsEntry("FAKETIME_DONT_FAKE_MONOTONIC", "1").containsKey("LD_PRELOAD");
    assertThat(read(Path.of(clock.environment().get("FAKETIME_TIMESTAMP_FILE")))).isEqualTo("+4.500");
    assertThatThrownBy(() -> clock.jump(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT-1S");
  }

  @Test
  void withoutLibfaketimeItSaysWhatToInstall() {
    assertThat(FakeClock.folders()).contains(Path.of("/usr/lib/faketime"));
    assertThatThrownBy(() -> FakeClock.find(List.of(base))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(base.toString()).hasMessageContaining("install Debian's faketime package");
  }

  @Test
  void aBlindGapNeedsItsLength() {
    List<String> common = List.of("--scheme", "S10", "--url", "redlock://127.0.0.1:1", "--process", "w1", "--history",
        "h", "--workload", "critical", "--lock", "l", "--lease-ms", "1000", "--wait-ms", "1", "--work-ms", "1",
        "--duration-ms", "1", "--resource", "jdbc:h2:mem:", "--gap");
    List<String> args = new ArrayList<>(common);
    args.add("--gap-blind");
    assertThatThrownBy(() -> WorkerOptions.parse(args.toArray(String[]::new)))
        .hasMessageContaining("--gap-blind goes with --gap-ms");
    args.addAll(List.of("--gap-ms", "2000"));
    WorkerOptions opts = WorkerOptions.parse(args.toArray(String[]::new));
    assertThat(opts.gapBlind()).isTrue();
    assertThat(opts.gapMs()).isEqualTo(2000);
    assertThat(opts.gapBeforeWrite()).isFalse();
  }

  @Test
  void aGapBeforeTheWriteNeedsAGap() {
    List<String> args = new ArrayList<>(List.of("--scheme", "S4", "--url", "redis://127.0.0.1:1", "--process", "w1",
        "--history", "h", "--workload", "critical", "--lock", "l", "--lease-ms", "1000", "--wait-ms", "1",
        "--work-ms", "1", "--duration-ms", "1", "--resource", "jdbc:h2:mem:", "--gap-before-write"));
    assertThatThrownBy(() -> WorkerOptions.parse(args.toArray(String[]::new)))
        .hasMessage("--gap-before-write goes with --gap only");
    args.add("--gap");
    assertThat(WorkerOptions.parse(args.toArray(String[]::new)).gapBeforeWrite()).isTrue();
  }

  private static long[] ask(Process probe, BufferedReader out) throws Exception {
    OutputStream in = probe.getOutputStream();
    in.write("?\n".getBytes(StandardCharsets.UTF_8));
    in.flush();
    String line = out.readLine();
    assertThat(line).as("the probe's answer").isNotNull();
    String[] f = line.split(" ");
    return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])};
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).trim();
    } catch (IOException e) {
      throw new AssertionError("cannot read " + file, e);
    }
  }
}
