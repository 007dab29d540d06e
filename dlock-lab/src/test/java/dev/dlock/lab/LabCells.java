package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The lab session of one verdict test class ({@code @RegisterExtension}): opened at the class's
 * first cell, on servers of its own, and closed after its last. The shape is the quick matrix's
 * with shorter runs and an earlier fault, so the build runs these cells in seconds each.
 *
 * <p>Why one place: every verdict class runs its cells the same way, one at a time; a run that
 * could not run must fail the test, not vanish from the results; and no live verdict may drift from
 * the record.
 */
final class LabCells implements AfterAllCallback {
  static final LabSettings SETTINGS = new LabSettings(3, Duration.ofSeconds(3), Duration.ofSeconds(1),
      Duration.ofMillis(40), Duration.ofSeconds(1), Duration.ofMillis(500), 100);

  private final String prefix;
  private Lab lab;

  /** {@code prefix} names the session's temporary folder. */
  LabCells(String prefix) {
    this.prefix = prefix;
  }

  /** Runs the critical-section cell of {@code scheme} under {@code fault} once. */
  CellResult run(String scheme, String fault) throws Exception {
    return run(scheme, fault, "critical");
  }

  /**
   * Runs one cell once and returns its result; fails if the run could not run, or if its verdict
   * is not the one the committed record (which the guide cites) holds for the cell.
   */
  CellResult run(String scheme, String fault, String workload) throws Exception {
    if (lab == null) {
      lab = new Lab(SETTINGS, Map.of(), Files.createTempDirectory(prefix), new PrintWriter(System.out, true));
    }
    int failed = lab.failures().size();
    List<CellResult> results = lab.run(List.of(new CellSpec(scheme, fault, workload)), 1);
    assertThat(lab.failures().subList(failed, lab.failures().size())).as("runs that could not run").isEmpty();
    assertThat(results).hasSize(1);
    Recorded.assertAgrees(results.get(0));
    return results.get(0);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (lab != null) {
      lab.close();
      lab = null;
    }
  }
}
