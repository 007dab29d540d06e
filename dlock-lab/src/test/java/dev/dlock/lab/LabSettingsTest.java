package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The settings each cell runs with: an F4 cell gets a lease that outlasts the failover. */
class LabSettingsTest {
  @Test
  void anF4CellGetsTheFailoverLeaseAndEveryOtherCellTheSessionsSettings() {
    LabSettings quick = LabSettings.QUICK;
    LabSettings f4 = quick.forCell(new CellSpec("S14", "F4", "critical"));
    assertThat(f4.lease()).isEqualTo(LabSettings.FAILOVER_LEASE);
    assertThat(f4).isEqualTo(new LabSettings(quick.workers(), quick.duration(), LabSettings.FAILOVER_LEASE,
        quick.work(), quick.acquireWait(), quick.faultAt(), quick.stock()));
    assertThat(quick.forCell(new CellSpec("S14", "F2", "critical"))).isSameAs(quick);
  }

  @Test
  void aSessionLeaseLongerThanTheFailoverLeaseIsKept() {
    LabSettings longer = new LabSettings(3, Duration.ofSeconds(40), Duration.ofSeconds(30), Duration.ofMillis(40),
        Duration.ofSeconds(1), Duration.ofMillis(700), 100);
    assertThat(longer.forCell(new CellSpec("S14-wait", "F4", "critical"))).isSameAs(longer);
  }
}
