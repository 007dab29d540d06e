package dev.dlock.lab;

import static dev.dlock.lab.Histories.info;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TerminalReportTest {

  static List<Cell> cells() {
    CellResult s7f2 = new Histories().hold("w1", 0, 10, -1).hold("w2", 5, 12, -1).hold("w3", 6, 13, -1)
        .check(info("S7", "F2", 1000));
    CellResult s8f2 = new Histories().hold("w1", 0, 10, 1).hold("w2", 5, 12, 2).write("w1", 7, 1, false)
        .fault(1, 4, "F2 w1").check(info("S8", "F2", 1000));
    CellResult s4gap = new Histories().hold("w1", 0, 5, -1).fault(6, 6, "F1-gap w1")
        .check(info("S4", "F1-gap", 1000));
    CellResult s8f1 = new Histories().hold("w1", 0, 5, 1).fault(6, 6, "F1 w1").hold("w2", 8.5, 9, 2)
        .check(info("S8", "F1", 1000));
    return Cell.group(List.of(s7f2, s8f2, s4gap, s8f1));
  }

  @Test
  void theMatrixHasASchemePerRowAndAFaultPerColumn() {
    String out = TerminalReport.render(cells());
    List<String> lines = out.lines().toList();
    String head = lines.get(0);
    // Faults in the matrix's fixed order, not the order the runs came in.
    assertThat(head.split("\\s+")).containsExactly("scheme", "F1", "F1-gap", "F2");
    assertThat(lines.get(1).split("\\s{2,}")).containsExactly("S7", "-", "-", "unsafe v=3");
    assertThat(lines.get(2).split("\\s{2,}")).containsExactly("S8", "safe", "-", "safe v=1");
    assertThat(lines.get(3).split("\\s{2,}")).containsExactly("S4", "-", "stuck", "-");
    // fixed width: each entry starts under its column's header
    assertThat(lines.get(3).indexOf("stuck")).isEqualTo(head.indexOf("F1-gap"));
    assertThat(lines.get(2).indexOf("safe v=1")).isEqualTo(head.indexOf("F2"));
  }

  @Test
  void theDetailTableHasALinePerCell() {
    String out = TerminalReport.render(cells());
    List<String> lines = out.lines().toList();
    int at = lines.indexOf(lines.stream().filter(l -> l.startsWith("scheme  fault")).findFirst().orElseThrow());
    assertThat(lines.subList(at + 1, lines.size())).hasSize(4);
    assertThat(lines.get(at + 1).split("\\s+"))
        .containsExactly("S7", "F2", "1", "3", "6.9", "no", "token", "0", "0", "0", "-", "-", "3.0", "unsafe");
    assertThat(lines.get(at + 2).split("\\s+"))
        .containsExactly("S8", "F2", "1", "1", "4.9", "0/1", "0", "0", "0", "1.0", "-", "2.0", "safe");
    assertThat(lines.get(at + 3)).contains("never").endsWith("stuck");
    assertThat(lines.get(at + 4).split("\\s+")[9]).isEqualTo("2.5");
    int width = lines.get(at).indexOf("verdict");
    assertThat(lines.get(at + 1).indexOf("unsafe")).isEqualTo(width);
    assertThat(out.chars().allMatch(ch -> ch == '\n' || (ch >= 32 && ch < 127))).isTrue();
  }
}
