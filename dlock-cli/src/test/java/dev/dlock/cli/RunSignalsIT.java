package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code dlock run} never leaves its command behind: a signal to dlock reaches the command's whole
 * process group, dlock waits for it, releases the lock and exits with the command's status; a
 * command that outlives the grace period, after a signal or a lost lease, gets SIGKILL. Against a
 * real Redis, with leases of a minute, so that a lock found free right after dlock exits was
 * released, not expired.
 */
class RunSignalsIT {
  /**
   * A leader shell and a member shell in the foreground under it, each trapping the signal given
   * as $0 and printing that it got it, and saying when its trap is set. The leader exits 3.
   */
  private static final String TRAPPING_GROUP = "trap 'echo \"leader got $0\"; exit 3' \"$0\"; echo \"leader $$\";"
      + " sh -c 'trap \"echo member got $0; exit 0\" \"$0\"; echo \"member $$\"; while :; do sleep 0.1; done' \"$0\"";

  /** A command that does not stop on SIGTERM: it says so each time and goes on. */
  private static final String IGNORES_TERM =
      "trap 'echo ignoring TERM' TERM; echo \"ready $$\"; while :; do sleep 0.1; done";

  private static TestServers.Redis redis;
  private static LockClient other;

  @TempDir Path home;
  /** The commands' processes, killed with their groups after each test in case dlock left them running. */
  private final List<Long> commands = new ArrayList<>();

  @BeforeAll
  static void startRedis() throws Exception {
    redis = new TestServers.Redis();
    other = LockClient.builder().url(redis.url()).build();
  }

  @AfterEach
  void killLeftovers() throws Exception {
    for (long pid : commands) {
      Procs.kill(pid);
    }
  }

  @AfterAll
  static void stopRedis() throws Exception {
    if (other != null) {
      other.close();
    }
    redis.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"TERM", "INT", "HUP"})
  void aSignalReachesTheWholeGroupAndDlockExitsWithTheCommandsStatus(String signal) throws Exception {
    String name = "group-" + signal;
    try (CliProcess run = CliProcess.start(home, "run", "--url", redis.url(), "--name", name,
        "--lease", "60s", "--", "sh", "-c", TRAPPING_GROUP, signal)) {
      long leader = pidIn(run.awaitLine(l -> l.startsWith("leader ")));
      long member = pidIn(run.awaitLine(l -> l.startsWith("member ")));
      assertThat(Procs.of(leader)).get().extracting(Procs.Proc::pgid, Procs.Proc::sid)
          .as("the command leads a group and session of its own").containsExactly(leader, leader);
      assertThat(Procs.of(member)).get().extracting(Procs.Proc::pgid).isEqualTo(leader);
      assertThat(Procs.of(run.pid())).get().extracting(Procs.Proc::pgid).isNotEqualTo(leader);

      run.signal(signal);

      assertThat(run.exitCode()).as("stderr: %s", run.err).isEqualTo(3);
      assertThat(run.outLines()).contains("member got " + signal, "leader got " + signal);
      assertThat(Procs.livingInGroup(leader)).as("the command's group once dlock exited").isEmpty();
      assertFreeAtOnce(name);
    }
  }

  @ParameterizedTest
  @CsvSource({"TERM, 143", "INT, 130", "HUP, 129"})
  void aCommandThatTheSignalEndsGivesWhatAShellReports(String signal, int status) throws Exception {
    String name = "sleep-" + signal;
    try (CliProcess run = CliProcess.start(home, "run", "--url", redis.url(), "--name", name,
        "--lease", "60s", "--", "sh", "-c", "echo \"ready $$\"; exec sleep 600")) {
      long command = pidIn(run.awaitLine(l -> l.startsWith("ready ")));
      run.signal(signal);
      assertThat(run.exitCode()).as("stderr: %s", run.err).isEqualTo(status);
      assertThat(Procs.livingInGroup(command)).isEmpty();
      assertFreeAtOnce(name);
    }
  }

  @Test
  void aCommandThatIgnoresTheSignalIsKilledAfterTheGracePeriod() throws Exception {
    try (CliProcess run = CliProcess.start(home, "run", "--url", redis.url(), "--name", "stubborn",
        "--lease", "60s", "--kill-after", "1s", "--", "sh", "-c", IGNORES_TERM)) {
      long command = pidIn(run.awaitLine(l -> l.startsWith("ready ")));
      long sent = System.nanoTime();
      run.signal("TERM");
      run.awaitLine("ignoring TERM"::equals);
      assertThat(run.exitCode()).as("stderr: %s", run.err).isEqualTo(128 + 9);
      assertThat(Duration.ofNanos(System.nanoTime() - sent)).as("SIGKILL came after --kill-after")
          .isBetween(Duration.ofMillis(900), Duration.ofSeconds(20));
      assertThat(Procs.livingInGroup(command)).isEmpty();
      assertThat(run.errLines()).filteredOn(l -> l.startsWith("dlock:")).singleElement().asString()
          .contains("'sh'", "1000 ms after SIGTERM", "SIGKILL");
      assertFreeAtOnce("stubborn");
    }
  }

  @Test
  void aLostLeaseSendsSigtermThenSigkillAfterTheGracePeriod() throws Exception {
    try (CliProcess run = CliProcess.start(home, "run", "--url", redis.url(), "--name", "lost",
        "--lease", "3s", "--kill-after", "1s", "--", "sh", "-c", IGNORES_TERM)) {
      long command = pidIn(run.awaitLine(l -> l.startsWith("ready ")));
      // Someone deletes the lock at the server: the next renewal, within a second, finds it gone.
      assertThat(redis.delete("dlock:{lost}:lock")).isEqualTo(1);

      run.awaitLine("ignoring TERM"::equals);
      long termed = System.nanoTime();
      assertThat(run.exitCode()).as("stderr: %s", run.err).isEqualTo(ExitCodes.LOST);
      assertThat(Duration.ofNanos(System.nanoTime() - termed)).as("SIGKILL came after --kill-after")
          .isBetween(Duration.ofMillis(800), Duration.ofSeconds(20));
      assertThat(Procs.livingInGroup(command)).isEmpty();
      assertThat(run.errLines()).filteredOn(l -> l.startsWith("dlock:")).singleElement().asString()
          .contains("'lost'", "lost", "1000 ms after SIGTERM", "SIGKILL", "no longer held");
    }
  }

  /** The pid after the first space of {@code line}, noted for the clean-up after the test. */
  @Test
  void aSignalWhileWaitingForTheLockEndsTheWaitAndTheCommandNeverStarts() throws Exception {
    try (Lease holder = other.lock("waited").acquire();
        CliProcess run = CliProcess.start(home, "run", "--url", redis.url(), "--name", "waited",
            "--", "sh", "-c", "echo started")) {
      // Nothing dlock prints says it waits; the server's queue for the lock does.
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (redis.queued("waited") == 0) {
        assertThat(run.process.isAlive()).as("dlock waits; stderr: %s", run.err).isTrue();
        assertThat(System.nanoTime() - deadline).as("dlock queued within 30 s").isNegative();
        Thread.sleep(20);
      }
      run.signal("INT");
      assertThat(run.exitCode()).as("stderr: %s", run.err).isEqualTo(128 + 2);
      assertThat(run.outLines()).isEmpty();
      assertThat(holder.isValid()).isTrue();
      // dlock left the queue as it exited, rather than being dropped from it when its place lapsed.
      assertThat(redis.queued("waited")).isZero();
    }
  }

  private long pidIn(String line) {
    long pid = Long.parseLong(line.substring(line.indexOf(' ') + 1).trim());
    commands.add(pid);
    return pid;
  }

  /** Another client takes the lock without waiting: dlock released it rather than let it expire. */
  private static void assertFreeAtOnce(String name) throws InterruptedException {
    Optional<Lease> taken = other.lock(name).tryAcquire(Duration.ZERO);
    assertThat(taken).as("'%s' free as soon as dlock exited", name).isPresent();
    taken.get().close();
  }
}
