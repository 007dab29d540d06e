package dev.dlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.bench.targets.Target;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.infra.ThreadParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the harness end to end with the smallest settings, in this JVM, and checks that sane rows
 * come out. Never asserts on speed: that is what the benchmark itself is for.
 */
class BenchSmokeTest {

  @Test
  void w1W2OneClientAndW4RunOnBothTargetsAndMakeATable(@TempDir Path dir) throws Exception {
    Settings s = Settings.parse("--workloads", "W4,W2-1c,W1", "-f", "0", "-wi", "0", "-i", "1",
        "-r", "100ms", "--out", dir.resolve("r.md").toString());
    ByteArrayOutputStream progress = new ByteArrayOutputStream();

    ResultTable table = BenchMain.run(s, new PrintStream(progress, true, StandardCharsets.UTF_8));

    assertThat(table.rows()).extracting(Row::workload, Row::target, Row::threads).containsExactly(
        org.assertj.core.groups.Tuple.tuple(Workload.W1, "reentrant", 1),
        org.assertj.core.groups.Tuple.tuple(Workload.W1, "mem", 1),
        org.assertj.core.groups.Tuple.tuple(Workload.W2_1C, "reentrant", 16),
        org.assertj.core.groups.Tuple.tuple(Workload.W2_1C, "mem", 16),
        org.assertj.core.groups.Tuple.tuple(Workload.W2_1C, "floor-handoff", 16),
        org.assertj.core.groups.Tuple.tuple(Workload.W4, "reentrant", 2),
        org.assertj.core.groups.Tuple.tuple(Workload.W4, "mem", 2));
    for (Row r : table.rows()) {
      assertThat(r.opsPerSec()).as("ops/s of %s", r).isPositive().isFinite();
      assertThat(r.p50Nanos()).as("p50 of %s", r).isNotNegative().isFinite();
      assertThat(r.p99Nanos()).as("p99 of %s", r).isGreaterThanOrEqualTo(r.p50Nanos()).isFinite();
      if (r.workload() == Workload.W1) {
        assertThat(r.allocBytesPerOp()).as("B/op of %s", r).isNotNegative().isFinite();
      } else {
        assertThat(r.allocBytesPerOp()).as("B/op of %s", r).isNaN();
      }
    }
    // A dlock lock+unlock allocates (its acquisition, its events); the figure must show it.
    assertThat(table.rows().get(1).allocBytesPerOp()).as("B/op of mem in W1").isGreaterThan(0);
    assertThat(table.text())
        .startsWith("workload | target        | threads |")
        .containsPattern("(?m)^W4 +\\| mem +\\| +2 \\| +[0-9,]+ \\| .+ \\| .+ \\| +[0-9.E]+x \\| +- \\| +-$")
        // W2-1c's floor is the in-process hand-off, whatever the backend
        .containsPattern("(?m)^W2-1c +\\| mem +\\| +16 \\| .* \\| +[0-9.E]+x \\| +-$")
        .containsPattern("(?m)^W2-1c +\\| floor-handoff +\\| +16 \\| .* \\| +1x \\| +-$")
        .containsPattern("(?m)^W1 +\\| reentrant +\\| +1 \\| .* \\| +1x \\| +- \\| +[0-9,]+$");
    assertThat(progress.toString(StandardCharsets.UTF_8)).contains("W4 on mem");
  }

  /** W2-1c's sixteen threads all take client 0's lock, where W2's are spread over the four clients. */
  @Test
  void w2OneClientPutsEveryThreadOnOneClient() throws Exception {
    List<Integer> asked = new ArrayList<>();
    LockBench bench = new LockBench();
    bench.impl = new OneLockTarget("recording", client -> {
      asked.add(client);
      return new ReentrantLock();
    });
    for (int t = 0; t < 16; t++) {
      new LockBench.OneKey().setUp(bench, new ThreadParams(t, 16, 0, 1, 0, 1, t, 16, t, 16));
    }
    assertThat(asked).containsOnly(0, 1, 2, 3).hasSize(16);
    asked.clear();
    for (int t = 0; t < 16; t++) {
      new LockBench.OneClient().setUp(bench);
    }
    assertThat(asked).containsOnly(0).hasSize(16);
    // and W2-1c's benchmark takes that state, not W2's
    assertThat(LockBench.class.getMethod("w2_1c", LockBench.OneClient.class,
        org.openjdk.jmh.infra.Control.class).getAnnotation(
        org.openjdk.jmh.annotations.Threads.class).value()).isEqualTo(16);
  }

  /**
   * W4's first handoff, slower than its whole measurement (a cold first lock on a loaded machine),
   * is still measured: the measurement runs on until it, and its rate counts over that time.
   */
  @Test
  void aFirstHandoffSlowerThanTheMeasurementIsWaitedFor() throws Exception {
    ReentrantLock slowFirst = new ReentrantLock() {
      private boolean first = true;

      @Override
      public void lock() {
        if (first) {
          first = false;
          LockSupport.parkNanos(Duration.ofMillis(400).toNanos()); // the cold start, 4 windows long
        }
        super.lock();
      }
    };
    Target target = new OneLockTarget("slow-first", client -> slowFirst);

    Row row = Handoff.run(target, Duration.ZERO, Duration.ofMillis(100));

    assertThat(row.opsPerSec()).as("handoffs/s").isPositive().isLessThan(1e9 / Duration.ofMillis(400).toNanos());
    assertThat(row.p50Nanos()).isPositive();
  }

  /**
   * Starts the embedded PostgreSQL (a few seconds), so only dlock's own JDBC target runs here, with
   * the PostgreSQL floor, which runs in W1 and W3 (16 threads on 1,024 keys, trying again when a key
   * is held) but not W4, and gives those rows their share of the floor.
   */
  @Test
  void jdbcPgAndItsFloorRunOnTheEmbeddedPostgres(@TempDir Path dir) throws Exception {
    Settings s = serverSettings(dir, "--targets", "jdbc-pg,floor-pg", "--workloads", "W1,W3,W4");

    ResultTable table = quietly(s);

    assertThat(table.rows()).extracting(Row::workload, Row::target, Row::threads).containsExactly(
        org.assertj.core.groups.Tuple.tuple(Workload.W1, "jdbc-pg", 1),
        org.assertj.core.groups.Tuple.tuple(Workload.W1, "floor-pg", 1),
        org.assertj.core.groups.Tuple.tuple(Workload.W3, "jdbc-pg", 16),
        org.assertj.core.groups.Tuple.tuple(Workload.W3, "floor-pg", 16),
        org.assertj.core.groups.Tuple.tuple(Workload.W4, "jdbc-pg", 2));
    for (Row r : table.rows()) {
      assertThat(r.opsPerSec()).as("ops/s of %s", r).isPositive().isFinite();
      assertThat(r.p50Nanos()).as("p50 of %s", r).isPositive().isFinite();
      assertThat(r.p99Nanos()).as("p99 of %s", r).isGreaterThanOrEqualTo(r.p50Nanos()).isFinite();
    }
    assertThat(table.text())
        .containsPattern("(?m)^W1 +\\| jdbc-pg +\\| +1 \\| .* \\| +1x \\| +[0-9.E]+x \\| +[0-9,]+$")
        .containsPattern("(?m)^W1 +\\| floor-pg +\\| +1 \\| .* \\| +[0-9.E]+x \\| +1x \\| +[0-9,]+$")
        .containsPattern("(?m)^W4 +\\| jdbc-pg +\\| +2 \\| .* \\| +1x \\| +- \\| +-$");
    assertThat(BenchMain.legend(s)).contains("embedded PostgreSQL", "floor-pg: the PostgreSQL floor");
  }

  /**
   * W4 on ZooKeeper beside its floor, whose waiter queues and watches the holder's node: the floor
   * hands off too, and dlock's row gets its share of the floor's p50.
   */
  @Test
  void zooKeeperAndItsFloorHandOffInW4(@TempDir Path dir) throws Exception {
    ResultTable table = quietly(serverSettings(dir, "--targets", "dlock-zookeeper,floor-zookeeper",
        "--workloads", "W4"));

    assertThat(table.rows()).extracting(Row::workload, Row::target, Row::failure).containsExactly(
        org.assertj.core.groups.Tuple.tuple(Workload.W4, "dlock-zookeeper", null),
        org.assertj.core.groups.Tuple.tuple(Workload.W4, "floor-zookeeper", null));
    assertThat(table.rows()).allSatisfy(r -> assertThat(r.p50Nanos()).as("p50 of %s", r).isPositive().isFinite());
    assertThat(table.text())
        .containsPattern("(?m)^W4 +\\| dlock-zookeeper +\\| +2 \\| .* \\| +1x \\| +[0-9.E]+x \\| +-$")
        .containsPattern("(?m)^W4 +\\| floor-zookeeper +\\| +2 \\| .* \\| +[0-9.E]+x \\| +1x \\| +-$");
  }

  /**
   * The ZooKeeper queue floor beside the plain one in W1 and W3, where 16 threads on 1,024 keys
   * sometimes meet on a key: its transaction then finds another node in the directory, deletes its
   * own and tries again, and every cycle still completes. Its rows are divided by the plain floor.
   */
  @Test
  void theZooKeeperQueueFloorGrantsALoneNodeAndRetriesOnAMeeting(@TempDir Path dir) throws Exception {
    Settings s = serverSettings(dir, "--targets", "floor-zookeeper,floor-zookeeper-queue", "--workloads", "W1,W3");

    ResultTable table = quietly(s);

    assertThat(table.rows()).extracting(Row::workload, Row::target, Row::failure).containsExactly(
        org.assertj.core.groups.Tuple.tuple(Workload.W1, "floor-zookeeper", null),
        org.assertj.core.groups.Tuple.tuple(Workload.W1, "floor-zookeeper-queue", null),
        org.assertj.core.groups.Tuple.tuple(Workload.W3, "floor-zookeeper", null),
        org.assertj.core.groups.Tuple.tuple(Workload.W3, "floor-zookeeper-queue", null));
    assertThat(table.rows()).allSatisfy(r -> assertThat(r.opsPerSec()).as("ops/s of %s", r).isPositive().isFinite());
    assertThat(table.text())
        .containsPattern("(?m)^W1 +\\| floor-zookeeper-queue +\\| +1 \\| .* \\| +[0-9.E]+x \\| +[0-9.E]+x \\| +[0-9,]+$");
    assertThat(BenchMain.legend(s)).contains("floor-zookeeper-queue: a queue lock's one-round-trip grant");
  }

  /**
   * {@code args} with one 300 ms iteration and no warm-up, for a server's targets. Why 300 ms, not
   * 100: on a loaded machine (load 25 on 2 cores) W4 then completed no handoff. W4 now runs on to
   * its first handoff ({@link #aFirstHandoffSlowerThanTheMeasurementIsWaitedFor}); JMH's workloads
   * still want the time.
   */
  private static Settings serverSettings(Path dir, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("-f", "0", "-wi", "0", "-i", "1", "-r", "300ms", "--out", dir.resolve("r.md").toString()));
    return Settings.parse(all.toArray(String[]::new));
  }

  /** Runs {@code s}, its progress lines dropped. */
  private static ResultTable quietly(Settings s) throws Exception {
    return BenchMain.run(s, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
  }
}
