package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The runnable jar carries every backend and the drivers it needs: {@code dlock run} and
 * {@code dlock status} against a real Redis, ZooKeeper and PostgreSQL server.
 */
class BackendsIT {
  private static TestServers.Server redis;
  private static TestServers.Server zookeeper;
  private static TestServers.Server postgres;

  @TempDir Path home;

  @BeforeAll
  static void startServers() throws Exception {
    redis = new TestServers.Redis();
    zookeeper = TestServers.zookeeper();
    postgres = TestServers.postgres();
  }

  @AfterAll
  static void stopServers() throws Exception {
    for (TestServers.Server s : new TestServers.Server[] {redis, zookeeper, postgres}) {
      if (s != null) {
        s.close();
      }
    }
  }

  private static String url(String backend) {
    return Map.of("redis", redis, "zookeeper", zookeeper, "postgresql", postgres).get(backend).url();
  }

  @ParameterizedTest
  @ValueSource(strings = {"redis", "zookeeper", "postgresql"})
  void runHoldsTheLockStatusShowsItAndTheExitFreesIt(String backend) throws Exception {
    String url = url(backend);
    try (CliProcess holder = CliProcess.start(home, "run", "--url", url, "--name", "nightly", "--",
        "sh", "-c", "echo holding; read x; exit 4")) {
      assertThat(holder.nextLine()).as("stderr: %s", holder.err).isEqualTo("holding");

      try (CliProcess status = CliProcess.start(home, "status", "--url", url, "nightly");
          CliProcess busy = CliProcess.start(home, "run", "--url", url, "--name", "nightly", "--wait", "0s",
              "--", "true")) {
        assertThat(status.exitCode()).as("stderr: %s", status.err).isZero();
        assertThat(String.join("\n", status.outLines())).contains("nightly", "dlock-cli-");
        assertThat(busy.exitCode()).as("stderr: %s", busy.err).isEqualTo(ExitCodes.BUSY);
        assertThat(busy.errLines()).singleElement().asString().contains("'nightly'", "busy");
      }

      holder.closeStdin();
      assertThat(holder.exitCode()).as("stderr: %s", holder.err).isEqualTo(4);
    }
    try (LockClient other = LockClient.builder().url(url).build()) {
      Optional<Lease> taken = other.lock("nightly").tryAcquire(Duration.ZERO);
      assertThat(taken).as("free as soon as dlock run exited").isPresent();
      taken.get().close();
    }
  }
}
