package dev.dlock.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the scale rows at small sizes: S1 and S2 on mem through the command line, and S1 on the
 * bench's PostgreSQL for its statement count. Checks that each row measured what it says, never
 * how fast.
 */
class ScaleSmokeTest {
  /**
   * A round every 1.5 s: long enough that a busy machine (a load of 20 to 30 on two cores, where
   * leases of 1.5 s and once of 3 s were lost on PostgreSQL, whose renewal waits for a pooled
   * connection behind the acquiring threads) or a pause of the JVM (the rows collect garbage
   * before the rounds) does not lose the leases.
   */
  private static final Duration LEASE = Duration.ofMillis(4500);
  private final ByteArrayOutputStream progress = new ByteArrayOutputStream();
  private final PrintStream progressStream = new PrintStream(progress, true, StandardCharsets.UTF_8);

  @Test
  void memRowsComeOutAsTablesAndAreAppendedToTheResults(@TempDir Path dir) throws Exception {
    Path md = dir.resolve("r.md");
    Files.writeString(md, "# earlier results\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    int status = ScaleMain.run(new String[] {"--backends", "mem", "--leases", "10", "--lease", "4500ms",
        "--rounds", "1", "--names", "100", "--threads", "2", "--out", md.toString()}, dir.resolve("unused.md"),
        new PrintStream(out, true, StandardCharsets.UTF_8), progressStream);

    assertThat(status).as("exit status; progress:%n%s", progress).isZero();
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text).containsPattern("(?m)^mem +\\| +10 \\| +[0-9.]+ ms \\|")
        .containsPattern("(?m)^mem +\\| +2 \\| +100 \\| +[0-9,]+ \\|.*\\| +0$");
    assertThat(Files.readString(md)).startsWith("# earlier results\n")
        .contains("## Scale (S1, S2)", "| S1 backend |", "| S2 backend |", "`./bench scale --backends mem");
    assertThat(progress.toString(StandardCharsets.UTF_8)).contains("bench: scale S1 on mem, 10 lease(s)");
  }

  @Test
  void s1TimesWholeRoundsOfEveryLeaseHeld() throws Exception {
    try (ScaleBackend mem = ScaleBackend.create("mem")) {
      S1.Result r = S1.run(mem, 100, LEASE, 1, progressStream);

      assertThat(r.leases()).isEqualTo(100);
      assertThat(r.maxRoundNanos()).isPositive().isGreaterThanOrEqualTo(r.maxCallNanos());
      assertThat(r.maxCallNanos()).isPositive();
      assertThat(r.requestsPerRound()).as("mem counts no requests").isEqualTo(-1);
      assertThat(r.heapEmpty()).isPositive();
    }
  }

  @Test
  void s2ReleasesEveryNameOnEachThreadCount() throws Exception {
    try (ScaleBackend mem = ScaleBackend.create("mem")) {
      List<S2.Result> rows = S2.run(mem, 1_000, List.of(1, 3), progressStream);

      assertThat(rows).extracting(S2.Result::threads).containsExactly(1, 3);
      for (S2.Result r : rows) {
        assertThat(r.opsPerSec()).as("ops/s of %s", r).isPositive().isFinite();
        assertThat(r.heldAfter()).as("holds left by %s", r).isZero();
        assertThat(r.heapAfter()).isPositive();
      }
    }
  }

  /** Starts the bench's embedded PostgreSQL if no other test has (a few seconds). */
  @Test
  void s1OnPostgresCountsTheRenewalStatementsAndS2TheRows() throws Exception {
    try (ScaleBackend pg = ScaleBackend.create("pg")) {
      S1.Result r = S1.run(pg, 100, LEASE, 1, progressStream);
      List<S2.Result> rows = S2.run(pg, 200, List.of(2), progressStream);

      assertThat(r.requestsPerRound()).as("statements per round of 100 renewals").isGreaterThanOrEqualTo(1);
      assertThat(rows.get(0).storedAfter()).as("rows of the lock table after 200 names")
          .isGreaterThanOrEqualTo(rows.get(0).storedBefore()).isNotNegative();
      assertThat(rows.get(0).storedUnit()).isEqualTo("rows");
    }
  }
}
