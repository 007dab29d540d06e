package dev.dlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ResultTableTest {
  private final ResultTable table = new ResultTable(List.of(
      new Row(Workload.W1, "reentrant", 1, 40_000_000, 25, 60),
      new Row(Workload.W1, "mem", 1, 400_000, 2_100, 15_500),
      new Row(Workload.W4, "mem", 2, 30_000, 13_000, 2_500_000)), "reentrant");

  @Test
  void textIsAlignedWithTheRatioToTheBaseline() {
    assertThat(table.text()).isEqualTo(String.join("\n",
        "workload | target    | threads |      ops/s |     p50 |     p99 | ops/s vs reentrant",
        "---------+-----------+---------+------------+---------+---------+-------------------",
        "W1       | reentrant |       1 | 40,000,000 |   25 ns |   60 ns |                 1x",
        "W1       | mem       |       1 |    400,000 |  2.1 us | 15.5 us |              0.01x",
        "W4       | mem       |       2 |     30,000 | 13.0 us | 2.50 ms |                  -",
        ""));
  }

  @Test
  void markdownHasOneRowPerResult() {
    assertThat(table.markdown().lines()).hasSize(5)
        .contains("| W1 | mem | 1 | 400,000 | 2.1 us | 15.5 us | 0.01x |");
  }

  @Test
  void aFailedMeasurementIsShownAsFailedAndIsNoBaseline() {
    ResultTable withFailure = new ResultTable(List.of(
        Row.failed(Workload.W2, "peer", new IllegalStateException("gave up")),
        new Row(Workload.W2, "mem", 16, 100_000, 2_000, 9_000)), "peer");
    assertThat(withFailure.markdown().lines())
        .contains("| W2 | peer | 16 | failed | - | - | - |")
        .contains("| W2 | mem | 16 | 100,000 | 2.0 us | 9.0 us | - |");
  }
}
