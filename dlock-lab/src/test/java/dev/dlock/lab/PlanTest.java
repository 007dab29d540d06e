package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlanTest {
  @Test
  void everyCellOfBothMatricesNamesAKnownSchemeWithAClaimAndAServer() {
    for (List<CellSpec> plan : List.of(Plan.quick(), Plan.full())) {
      for (CellSpec c : plan) {
        assertThat(Claims.known(c.scheme())).as("a claim for %s", c).isTrue();
        assertThat(Plan.server(c)).as("the server of %s", c).isNotBlank();
      }
      assertThat(plan).doesNotHaveDuplicates();
    }
    assertThat(Plan.full()).containsAll(Plan.quick());
  }

  @Test
  void aSelectionTakesSchemesBackendsAndFaults() {
    List<CellSpec> redisUnderPause = Plan.select(Plan.quick(), Set.of("S4", "S7", "redis"), Set.of("F2"));
    assertThat(redisUnderPause).extracting(CellSpec::scheme)
        .containsExactly("S6", "S7", "S8-wrong", "S8", "redisson", "redisson-fenced");
    assertThat(redisUnderPause).extracting(CellSpec::fault).containsOnly("F2");
    assertThat(Plan.select(Plan.quick(), Set.of(), Set.of())).isEqualTo(Plan.quick());
    assertThat(Plan.select(Plan.quick(), Set.of("S4", "S7", "redis"), Set.of("pause-holder")))
        .as("a fault by its name").isEqualTo(redisUnderPause);
  }

  @Test
  void unknownNamesAreRefusedByName() {
    assertThatThrownBy(() -> Plan.select(Plan.quick(), Set.of("S99"), Set.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'S99'");
    assertThatThrownBy(() -> Plan.select(Plan.quick(), Set.of(), Set.of("F9")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'F9'");
    assertThatThrownBy(() -> Plan.select(Plan.quick(), Set.of("S4"), Set.of("F8")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no cell");
    assertThatThrownBy(() -> new CellSpec("S7", "F2", "batch"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'batch'");
  }

  @Test
  void aSchemeRunUnderTwoWorkloadsGetsTwoRows() {
    RunInfo critical = new RunInfo("none", "none", "critical", 1, 0, 1_000_000_000L, 1_000_000_000L, -1, -1);
    RunInfo flash = new RunInfo("none", "none", "flash", 1, 0, 1_000_000_000L, 1_000_000_000L, 10, 0);
    List<Cell> cells = Cell.group(List.of(Checker.check(critical, List.of()), Checker.check(flash, List.of())));
    assertThat(cells).extracting(Cell::scheme).containsExactly("none", "none (flash)");
    assertThat(Cell.schemeOf("none (flash)")).isEqualTo("none");
  }

  @Test
  void settingsRefuseWhatCannotRun() {
    assertThatThrownBy(() -> new LabSettings(1, LabSettings.QUICK.duration(), LabSettings.QUICK.lease(),
        LabSettings.QUICK.work(), LabSettings.QUICK.acquireWait(), LabSettings.QUICK.faultAt(), 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("workers").hasMessageContaining("1");
    assertThatThrownBy(() -> new LabSettings(3, LabSettings.QUICK.duration(), LabSettings.QUICK.lease(),
        LabSettings.QUICK.work(), LabSettings.QUICK.acquireWait(), LabSettings.QUICK.duration(), 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("faultAt");
  }
}
