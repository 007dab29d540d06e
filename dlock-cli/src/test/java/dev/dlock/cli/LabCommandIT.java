package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dlock lab} as a user runs it: a chosen part of the matrix, from the jar. */
class LabCommandIT {
  @TempDir Path home;

  @Test
  void aChosenCellRunsAndIsReportedInTheTerminalAndInHtml() throws Exception {
    Path report = home.resolve("report.html");
    Path record = home.resolve("docs/lab.tsv");
    try (CliProcess lab = CliProcess.start(home, "lab", "--schemes", "S7", "--faults", "F2", "--report",
        report.toString(), "--dir", home.resolve("runs").toString(), "--record", record.toString())) {
      assertThat(lab.exitCode()).as("stderr: %s", lab.err).isZero();
      List<String> out = lab.outLines();
      assertThat(out).as("progress").anyMatch(l -> l.startsWith("[1/1] S7 x F2"));
      assertThat(out).as("the detail row").anyMatch(l -> l.matches("S7\\s+F2\\s+1\\s+.*unsafe"));
      assertThat(out).anyMatch(l -> l.startsWith("Report: " + report));
    }
    String html = Files.readString(report, StandardCharsets.UTF_8);
    assertThat(html).contains("id=\"matrix\"").contains("<svg").doesNotContain("<script");
    assertThat(home.resolve("runs")).isDirectoryRecursivelyContaining("glob:**/w1.jsonl");
    List<String> lines = Files.readAllLines(record, StandardCharsets.UTF_8);
    assertThat(lines.get(0)).startsWith("# ").contains("settings: workers=3").endsWith("command: ./dlock lab --schemes S7"
        + " --faults F2 --report " + report + " --dir " + home.resolve("runs") + " --record " + record);
    assertThat(lines.get(1)).startsWith("row\tfault\truns\tverdict");
    assertThat(lines.get(2)).startsWith("S7\tF2\t1\tunsafe\t").endsWith("\tfalse");
    assertThat(lines).hasSize(3);
  }

  @Test
  void mergeWithoutARecordIsRefusedBeforeAnythingStarts() throws Exception {
    try (CliProcess lab = CliProcess.start(home, "lab", "--merge")) {
      assertThat(lab.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(String.join("\n", lab.errLines())).contains("--merge needs --record FILE");
    }
  }

  @Test
  void anUnknownSchemeIsRefusedByNameBeforeAnythingStarts() throws Exception {
    try (CliProcess lab = CliProcess.start(home, "lab", "--schemes", "S99")) {
      assertThat(lab.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(String.join("\n", lab.errLines())).contains("--schemes").contains("'S99'");
    }
    try (CliProcess lab = CliProcess.start(home, "lab", "--url", "mongo=mongodb://x")) {
      assertThat(lab.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(String.join("\n", lab.errLines())).contains("--url").contains("'mongo'");
    }
  }
}
