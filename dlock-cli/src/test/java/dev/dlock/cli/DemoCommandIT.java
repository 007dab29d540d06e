package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dlock demo} as a user runs it: real worker JVMs over embedded H2, Redis and ZooKeeper. */
class DemoCommandIT {
  @TempDir Path home;

  @Test
  void withoutALockTheSaleOversellsAndWithOneItNeverDoes() throws Exception {
    try (CliProcess demo = CliProcess.start(home, "demo", "--stock", "30", "--workers", "2", "--buyers", "3")) {
      assertThat(demo.exitCode()).as("stderr: %s", demo.err).isZero();
      List<String> out = demo.outLines();
      assertThat(row(out, "no lock")[2]).as("oversold without a lock").isGreaterThan(0);
      for (String locked : new String[] {"S1 lease lock", "S2 optimistic", "S3 session lock", "S8 Redis lock",
          "S12 ZooKeeper lock"}) {
        int[] r = row(out, locked);
        assertThat(r[1]).as("%s sold", locked).isEqualTo(30);
        assertThat(r[2]).as("%s oversold", locked).isZero();
      }
      // The paused sale: S7 lets the paused buyer's stale write through; dlock's token refuses it.
      String[] s7 = cells(out, "S7 SET NX PX + DEL");
      assertThat(s7[4].trim()).as("S7's stale writes").doesNotStartWith("0 in");
      assertThat(s7[5].trim()).isEqualTo("unsafe");
      String[] s8 = cells(out, "S8 dlock Redis + token");
      assertThat(Integer.parseInt(s8[2].trim())).as("oversold with dlock's token").isZero();
      assertThat(Integer.parseInt(s8[3].trim())).as("lost updates with dlock's token").isZero();
      assertThat(s8[4].trim()).as("dlock's stale writes").startsWith("0 in");
      assertThat(s8[5].trim()).isEqualTo("safe");
    }
  }

  private static String[] cells(List<String> out, String label) {
    String line = out.stream().filter(l -> l.startsWith(label + " ")).findFirst()
        .orElseThrow(() -> new AssertionError("no row for '" + label + "' in " + out));
    return line.split("\\|");
  }

  /** The row's numbers: sold at [1], oversold at [2]. */
  private static int[] row(List<String> out, String strategy) {
    String[] cells = cells(out, strategy);
    return new int[] {0, Integer.parseInt(cells[1].trim()), Integer.parseInt(cells[2].trim())};
  }
}
