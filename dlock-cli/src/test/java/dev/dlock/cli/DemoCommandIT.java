package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dlock demo} as a user runs it: real worker JVMs over an embedded H2 database. */
class DemoCommandIT {
  @TempDir Path home;

  @Test
  void withoutALockTheSaleOversellsAndWithOneItNeverDoes() throws Exception {
    try (CliProcess demo = CliProcess.start(home, "demo", "--stock", "30", "--workers", "2", "--buyers", "3")) {
      assertThat(demo.exitCode()).as("stderr: %s", demo.err).isZero();
      List<String> out = demo.outLines();
      assertThat(row(out, "no lock")[2]).as("oversold without a lock").isGreaterThan(0);
      for (String locked : new String[] {"S1 lease lock", "S2 optimistic", "S3 session lock"}) {
        int[] r = row(out, locked);
        assertThat(r[1]).as("%s sold", locked).isEqualTo(30);
        assertThat(r[2]).as("%s oversold", locked).isZero();
      }
    }
  }

  /** The row's numbers: sold at [1], oversold at [2]. */
  private static int[] row(List<String> out, String strategy) {
    String line = out.stream().filter(l -> l.startsWith(strategy + " ")).findFirst()
        .orElseThrow(() -> new AssertionError("no row for '" + strategy + "' in " + out));
    String[] cells = line.split("\\|");
    return new int[] {0, Integer.parseInt(cells[1].trim()), Integer.parseInt(cells[2].trim())};
  }
}
