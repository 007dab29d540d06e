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
    assertThat(s.targets()).containsExactly("reentrant", "mem"); // no database unless asked for
    assertThat(s.baseline()).isEqualTo("reentrant");
    assertThat(s.forks()).isEqualTo(1);
    assertThat(s.handoffMeasurement()).isEqualTo(Duration.ofSeconds(3));
    assertThat(s.out().getFileName()).hasToString("bench-results.md");
  }

  @Test
  void quickIsShortAndExplicitFlagsWin() {
    Settings s = Settings.parse("--quick", "-i", "2", "--targets", "mem,reentrant", "--workloads", "w4,W1");
    assertThat(s.forks()).isZero();
    assertThat(s.iterations()).isEqualTo(2);
    assertThat(s.handoffMeasurement()).isEqualTo(Duration.ofMillis(400));
    assertThat(s.targets()).isEqualTo(List.of("mem", "reentrant"));
    assertThat(s.workloads()).containsExactly(Workload.W1, Workload.W4);
  }

  @Test
  void theJdbcPresetNamesTheThreeJdbcTargetsAndTheBaselineIsSelectable() {
    Settings s = Settings.parse("--targets", "jdbc,jdbc-pg", "--baseline", "spring-jdbc");
    assertThat(s.targets()).containsExactly("jdbc-pg", "spring-jdbc", "shedlock-jdbc");
    assertThat(s.baseline()).isEqualTo("spring-jdbc");
    assertThat(Settings.parse("--targets", "redis").targets())
        .containsExactly("dlock-redis", "redisson", "redisson-fair", "spring-redis");
    assertThatThrownBy(() -> Settings.parse("--targets", "mem", "--baseline", "reentrant"))
        .hasMessageContaining("not among the targets run");
  }

  @Test
  void badCommandLinesSayWhatIsWrong() {
    assertThatThrownBy(() -> Settings.parse("--targets", "etcd"))
        .hasMessageContaining("unknown target 'etcd'").hasMessageContaining("mem");
    assertThatThrownBy(() -> Settings.parse("--workloads", "W9")).hasMessageContaining("W9");
    assertThatThrownBy(() -> Settings.parse("-r", "soon")).hasMessageContaining("-r");
    assertThatThrownBy(() -> Settings.parse("-i")).hasMessageContaining("Missing required parameter for option '-i'");
    assertThatThrownBy(() -> Settings.parse("--fast")).hasMessageContaining("--fast");
    assertThatThrownBy(() -> Settings.parse("--baseline", "nope")).hasMessageContaining("'nope'");
  }

  @Test
  void theUsageNamesEveryOptionAndTheKnownTargets() {
    String usage = Settings.usage();
    assertThat(usage).contains("--quick", "--targets", "--baseline", "--workloads", "-f", "-wi", "-w", "-i",
        "-r", "--out", "--verbose", "--help", "jdbc-pg", "reentrant", "redis-ha");
  }
}
