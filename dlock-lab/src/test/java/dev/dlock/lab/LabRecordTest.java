package dev.dlock.lab;

import static dev.dlock.lab.Histories.info;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LabRecordTest {
  private final List<Cell> cells = TerminalReportTest.cells();

  @Test
  void aCellBecomesOneTabSeparatedLine() {
    LabRecord r = LabRecord.of("r", cells, "c");
    assertThat(r.text().lines().toList()).containsExactly(
        "# c",
        String.join("\t", RecordedCell.COLUMNS),
        "S7\tF2\t1\tunsafe\t3\t0\t0\t0\t0\t0\tfalse\t-\t3.0\t-\tfalse",
        "S8\tF2\t1\tsafe\t1\t0\t1\t0\t0\t0\tfalse\t1.0\t2.0\t-\ttrue",
        "S4\tF1-gap\t1\tstuck\t0\t0\t0\t0\t0\t0\ttrue\t-\t1.0\t-\tfalse",
        "S8\tF1\t1\tsafe\t0\t0\t0\t0\t0\t0\tfalse\t2.5\t2.0\t-\ttrue");
  }

  @Test
  void whatIsWrittenIsReadBack(@TempDir Path dir) {
    Path file = dir.resolve("docs/lab.tsv");
    LabRecord r = LabRecord.of("r", cells, LabRecord.comment(Instant.parse("2026-11-26T10:00:00.123Z"),
        LabSettings.QUICK, "./dlock lab --full --record docs/lab-matrix.tsv"));
    r.write(file);
    LabRecord back = LabRecord.read(file);
    assertThat(back.cells()).isEqualTo(r.cells());
    assertThat(back.comments()).containsExactly("2026-11-26T10:00:00Z  settings: workers=3 duration=4000ms"
        + " lease=1000ms work=40ms acquire-wait=1000ms fault-at=700ms stock=100"
        + "  command: ./dlock lab --full --record docs/lab-matrix.tsv");
    RecordedCell s8 = back.find("S8", "F2").orElseThrow();
    assertThat(s8.verdict()).isEqualTo(Verdict.SAFE);
    assertThat(s8.staleRejected()).isEqualTo(1);
    assertThat(s8.fenced()).isTrue();
    assertThat(back.find("S7", "F2").orElseThrow().worstRecoveryMs()).isNaN();
    assertThat(back.find("S9", "F2")).isEmpty();
  }

  @Test
  void aMergeReplacesTheCellsRunAgainAndKeepsTheOthers() {
    LabRecord old = LabRecord.of("r", cells, "first");
    CellResult s7safe = new Histories().hold("w1", 0, 10, -1).check(info("S7", "F2", 1000));
    CellResult s9 = new Histories().hold("w1", 0, 10, -1).check(info("S9", "none", 1000));
    LabRecord merged = old.merge(LabRecord.of("r", Cell.group(List.of(s7safe, s9)), "second"));
    assertThat(merged.comments()).containsExactly("first", "second");
    assertThat(merged.cells()).extracting(RecordedCell::key)
        .containsExactly("S7 × F2", "S8 × F2", "S4 × F1-gap", "S8 × F1", "S9 × none");
    assertThat(merged.find("S7", "F2").orElseThrow().verdict()).isEqualTo(Verdict.SAFE);
  }

  @Test
  void aLiveRunMustHaveTheRecordedVerdict() {
    LabRecord r = LabRecord.of("docs/lab-matrix.tsv", cells, "c");
    CellResult unsafe = cells.get(0).runs().get(0);
    assertThat(r.disagreement(unsafe)).isEmpty();
    CellResult safe = new Histories().hold("w1", 0, 10, -1).check(info("S7", "F2", 1000));
    assertThat(r.disagreement(safe)).hasValueSatisfying(m -> assertThat(m).contains("S7 × F2")
        .contains("this run's verdict is safe").contains("records unsafe").contains(LabRecord.REFRESH));
    CellResult missing = new Histories().hold("w1", 0, 10, -1).check(info("S14", "F4", 1000));
    assertThat(r.disagreement(missing)).hasValueSatisfying(m -> assertThat(m).contains("S14 × F4 (this run: safe)")
        .contains("is not in docs/lab-matrix.tsv").contains("--schemes S14 --faults F4 --record docs/lab-matrix.tsv --merge"));
  }

  @Test
  void aBadLineIsRefusedNamingTheLineTheColumnAndTheValue() {
    String head = String.join("\t", RecordedCell.COLUMNS) + "\n";
    assertThatThrownBy(() -> LabRecord.parse(head + "S8\tF2\t1\tmaybe\t0\t0\t0\t0\t0\t0\tfalse\t-\t1.0\t-\ttrue\n", "f.tsv"))
        .hasMessage("f.tsv line 2: verdict is 'maybe', expected safe, unsafe or stuck");
    assertThatThrownBy(() -> LabRecord.parse(head + "S8\tF2\t1\tsafe\t0\t0\t0\t0\t0\t0\tfalse\tx\t1.0\t-\ttrue\n", "f.tsv"))
        .hasMessage("f.tsv line 2: worst_recovery_ms is 'x', expected a number or -");
    assertThatThrownBy(() -> LabRecord.parse(head + "S8\tF2\n", "f.tsv")).hasMessageStartingWith("f.tsv line 2: 2 columns");
    assertThatThrownBy(() -> LabRecord.parse("row\tfault\n", "f.tsv")).hasMessageContaining("f.tsv line 1: expected the column names");
    String line = "S8\tF2\t1\tsafe\t0\t0\t0\t0\t0\t0\tfalse\t-\t1.0\t-\ttrue\n";
    assertThatThrownBy(() -> LabRecord.parse(head + line + line, "f.tsv")).hasMessage("f.tsv: S8 × F2 is recorded twice");
  }
}
