package dev.dlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SettingsTest {

  @Test
  void defaultsRunEverythingWithTheFloorFirst() {
    Settings s = Settings.parse();
    assertThat(s.workloads()).containsExactly(Workload.values());
    // no database unless asked for; W2-1c's in-process floor needs none
    assertThat(s.targets()).containsExactly("reentrant", "mem", "floor-handoff");
    assertThat(s.baseline()).isEqualTo("reentrant");
    assertThat(s.forks()).isEqualTo(1);
    assertThat(s.handoffMeasurement()).isEqualTo(Duration.ofSeconds(3));
    assertThat(s.out().getFileName()).hasToString("bench-results.md");
  }

  @Test
  void quickIsShortAndExplicitFlagsWin() {
    Settings s = Settings.parse("--quick", "-i", "2", "--targets", "mem,reentrant", "--workloads", "w4,w2-1C,W1");
    assertThat(s.forks()).isZero();
    assertThat(s.iterations()).isEqualTo(2);
    assertThat(s.handoffMeasurement()).isEqualTo(Duration.ofMillis(400));
    assertThat(s.targets()).isEqualTo(List.of("mem", "reentrant"));
    assertThat(s.workloads()).containsExactly(Workload.W1, Workload.W2_1C, Workload.W4);
  }

  @Test
  void theServerPresetsNameTheirTargetsWithTheirFloorsLastAndTheBaselineIsSelectable() {
    Settings s = Settings.parse("--targets", "jdbc,jdbc-pg", "--baseline", "spring-jdbc");
    assertThat(s.targets()).containsExactly("jdbc-pg", "spring-jdbc", "shedlock-jdbc", "floor-pg", "floor-handoff");
    assertThat(s.baseline()).isEqualTo("spring-jdbc");
    assertThat(Settings.parse("--targets", "redis").targets())
        .containsExactly("dlock-redis", "redisson", "redisson-fair", "spring-redis", "floor-redis", "floor-redis-token", "floor-handoff");
    // two presets share the hand-off floor, which runs once
    assertThat(Settings.parse("--targets", "zookeeper,redis").targets())
        .containsExactly("dlock-zookeeper", "curator", "floor-zookeeper", "floor-zookeeper-queue", "dlock-redis",
            "redisson", "redisson-fair", "spring-redis", "floor-redis", "floor-redis-token", "floor-handoff");
    assertThat(Settings.parse("--targets", "redis").baseline()).isEqualTo("dlock-redis");
    assertThatThrownBy(() -> Settings.parse("--targets", "mem", "--baseline", "reentrant"))
        .hasMessageContaining("not among the targets run");
  }

  @Test
  void badCommandLinesSayWhatIsWrong() {
    assertThatThrownBy(() -> Settings.parse("--targets", "etcd"))
        .hasMessageContaining("unknown target 'etcd'").hasMessageContaining("mem");
    assertThatThrownBy(() -> Settings.parse("--workloads", "W9")).hasMessageContaining("W9")
        .hasMessageContaining("W2-1c");
    assertThatThrownBy(() -> Settings.parse("-r", "soon")).hasMessageContaining("-r").hasMessageContaining("'soon'");
    assertThatThrownBy(() -> Settings.parse("-f", "two")).hasMessageContaining("'-f'").hasMessageContaining("'two'");
    assertThatThrownBy(() -> Settings.parse("-wi", "-1")).hasMessageContaining("-wi").hasMessageContaining("'-1'");
    assertThatThrownBy(() -> Settings.parse("-i", "0")).hasMessageContaining("-i").hasMessageContaining("'0'");
    assertThatThrownBy(() -> Settings.parse("-i")).hasMessageContaining("Missing required parameter for option '-i'");
    assertThatThrownBy(() -> Settings.parse("--fast")).hasMessageContaining("--fast");
    assertThatThrownBy(() -> Settings.parse("--baseline", "nope")).hasMessageContaining("'nope'");
  }

  @Test
  void helpIsReadWhereverItStandsAndTheJmhFlagsKeepTheirOwnNames() {
    assertThat(Settings.parse("--help").help()).isTrue();
    assertThat(Settings.parse("--quick", "-h").help()).isTrue();
    assertThat(Settings.parse().help()).isFalse();
    assertThat(Settings.parse().workloads()).extracting(Workload::toString)
        .containsExactly("W1", "W2", "W2-1c", "W3", "W4");
    // -wi is its own option, not -w with the value "i"
    Settings s = Settings.parse("-wi", "3", "-w", "500ms", "-i", "2", "-r", "1s", "-f", "0", "-v", "--out", "x.md");
    assertThat(s.warmupIterations()).isEqualTo(3);
    assertThat(s.handoffWarmup()).isEqualTo(Duration.ofMillis(1500));
    assertThat(s.handoffMeasurement()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.forks()).isZero();
    assertThat(s.verbose()).isTrue();
    assertThat(s.out()).hasToString("x.md");
  }

  @Test
  void theUsageNamesEveryOptionAndTheKnownTargets() {
    String usage = Settings.usage();
    assertThat(usage).contains("--quick", "--targets", "--baseline", "--workloads", "-f", "-wi", "-w", "-i",
        "-r", "--out", "--verbose", "--help", "jdbc-pg", "reentrant", "redis-ha", "floor-redis",
        "floor-zookeeper", "floor-pg");
    assertThat(usage).containsPattern("W2-1c +16 threads, 1 key, lock\\+unlock, all on one client");
  }
}
