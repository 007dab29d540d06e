package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class EnsembleCutTest {
  @Test
  void theMinorityHolderKeepsOnlyItsServerAndThatServerIsCutOff() {
    assertThat(EnsembleCut.of("F6-min", 1, 0, 3)).isEqualTo(new EnsembleCut(List.of(0, 2), 1));
    assertThat(EnsembleCut.of("F6-min", 0, 0, 3)).isEqualTo(new EnsembleCut(List.of(1, 2), 0));
  }

  @Test
  void theMajorityHolderLosesOnlyAFollowerThatIsNotItsServer() {
    assertThat(EnsembleCut.of("F6-maj", 1, 0, 3)).as("holder on a follower").isEqualTo(new EnsembleCut(List.of(2), 2));
    assertThat(EnsembleCut.of("F6-maj", 0, 0, 3)).as("holder on the leader").isEqualTo(new EnsembleCut(List.of(1), 1));
    assertThat(EnsembleCut.of("F6-maj", 2, 1, 3)).isEqualTo(new EnsembleCut(List.of(0), 0));
  }

  @Test
  void aWholeCutIsolatesNoMember() {
    assertThat(EnsembleCut.of("F6", 2, 0, 3)).isEqualTo(new EnsembleCut(List.of(0, 1, 2), -1));
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> EnsembleCut.of("F5", 0, 0, 3)).hasMessageContaining("'F5'");
    assertThatThrownBy(() -> EnsembleCut.of("F6-min", 3, 0, 3)).hasMessageContaining("s 3");
  }
}
