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
        "workload | target    | threads |      ops/s |     p50 |     p99 | ops/s vs reentrant | of floor | B/op",
        "---------+-----------+---------+------------+---------+---------+--------------------+----------+-----",
        "W1       | reentrant |       1 | 40,000,000 |   25 ns |   60 ns |                 1x |        - |    -",
        "W1       | mem       |       1 |    400,000 |  2.1 us | 15.5 us |              0.01x |        - |    -",
        "W4       | mem       |       2 |     30,000 | 13.0 us | 2.50 ms |                  - |        - |    -",
        ""));
  }

  @Test
  void markdownHasOneRowPerResult() {
    assertThat(table.markdown().lines()).hasSize(5)
        .contains("| W1 | mem | 1 | 400,000 | 2.1 us | 15.5 us | 0.01x | - | - |");
  }

  @Test
  void eachRowShowsItsShareOfItsBackendFloorAndW1ItsAllocation() {
    ResultTable redis = new ResultTable(List.of(
        new Row(Workload.W1, "dlock-redis", 1, 9_000, 100_000, 200_000).withAllocation(1_234.4),
        new Row(Workload.W1, "redisson", 1, 3_000, 300_000, 900_000).withAllocation(6_000),
        new Row(Workload.W1, "floor-redis", 1, 10_000, 90_000, 150_000).withAllocation(800),
        new Row(Workload.W1, "mem", 1, 400_000, 2_100, 15_500),
        new Row(Workload.W2_1C, "dlock-redis", 16, 50_000, 300_000, 900_000),
        new Row(Workload.W4, "dlock-redis", 2, 5_000, 150_000, 300_000)), "redisson");
    assertThat(redis.markdown().lines()).containsExactly(
        "| workload | target | threads | ops/s | p50 | p99 | ops/s vs redisson | of floor | B/op |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        "| W1 | dlock-redis | 1 | 9,000 | 100.0 us | 200.0 us | 3x | 0.9x | 1,234 |",
        "| W1 | redisson | 1 | 3,000 | 300.0 us | 900.0 us | 1x | 0.3x | 6,000 |",
        "| W1 | floor-redis | 1 | 10,000 | 90.0 us | 150.0 us | 3.3x | 1x | 800 |",
        // mem has no backend floor; W2-1c and W4 have no floor row to divide by.
        "| W1 | mem | 1 | 400,000 | 2.1 us | 15.5 us | 130x | - | - |",
        "| W2-1c | dlock-redis | 16 | 50,000 | 300.0 us | 900.0 us | - | - | - |",
        "| W4 | dlock-redis | 2 | 5,000 | 150.0 us | 300.0 us | - | - | - |");
  }

  @Test
  void inW4TheShareOfTheFloorIsTheFloorsLatencyOverTheRows() {
    ResultTable handoff = new ResultTable(List.of(
        new Row(Workload.W4, "floor-zookeeper", 2, 4_000, 200_000, 400_000),
        new Row(Workload.W4, "curator", 2, 1_000, 800_000, 2_000_000)), "curator");
    assertThat(handoff.markdown()).contains("| W4 | curator | 2 | 1,000 | 800.0 us | 2.00 ms | 1x | 0.25x | - |");
  }

  @Test
  void inW2OneClientEveryRowsFloorIsTheInProcessHandoff() {
    ResultTable oneClient = new ResultTable(List.of(
        new Row(Workload.W2_1C, "dlock-redis", 16, 80_000, 10_000, 90_000),
        new Row(Workload.W2_1C, "dlock-zookeeper", 16, 40_000, 20_000, 90_000),
        new Row(Workload.W2_1C, "floor-handoff", 16, 100_000, 9_000, 80_000),
        new Row(Workload.W2, "dlock-redis", 16, 20_000, 10_000, 90_000)), "dlock-redis");
    assertThat(oneClient.markdown().lines()).contains(
        "| W2-1c | dlock-redis | 16 | 80,000 | 10.0 us | 90.0 us | 1x | 0.8x | - |",
        "| W2-1c | dlock-zookeeper | 16 | 40,000 | 20.0 us | 90.0 us | 0.5x | 0.4x | - |",
        "| W2-1c | floor-handoff | 16 | 100,000 | 9.0 us | 80.0 us | 1.3x | 1x | - |",
        // W2 spreads its threads over four clients: no in-process floor applies
        "| W2 | dlock-redis | 16 | 20,000 | 10.0 us | 90.0 us | 1x | - | - |");
  }

  @Test
  void aFailedMeasurementIsShownAsFailedAndIsNoBaseline() {
    ResultTable withFailure = new ResultTable(List.of(
        Row.failed(Workload.W2, "peer", new IllegalStateException("gave up")),
        new Row(Workload.W2, "mem", 16, 100_000, 2_000, 9_000)), "peer");
    assertThat(withFailure.markdown().lines())
        .contains("| W2 | peer | 16 | failed | - | - | - | - | - |")
        .contains("| W2 | mem | 16 | 100,000 | 2.0 us | 9.0 us | - | - | - |");
  }
}
