package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * F6: the holder cut off from its servers while the other workers still reach them, through a
 * network path of its own that goes silent. The rule checked: a dlock holder learns of its loss
 * before the server can grant the lock to anyone else, so it leaves before a second holder exists.
 */
class PartitionVerdictsTest {
  @RegisterExtension
  static final LabCells lab = new LabCells("lab-partitions");

  private static CellResult run(String scheme, String fault) throws Exception {
    return lab.run(scheme, fault);
  }

  @Test
  void aPartitionedDlockHolderLearnsOfItsLossBeforeAnyoneElseHolds() throws Exception {
    for (String scheme : List.of("S8", "S1-pg", "S12")) {
      CellResult r = run(scheme, "F6");
      Checker.LossNotices notices = Checker.lossNotices(r.events());
      assertThat(notices.told()).as("%s: the cut-off holder was told", scheme).isPositive();
      assertThat(notices.late()).as("%s: told only after another grant", scheme).isZero();
      assertThat(r.violations()).as("%s: two holders at once", scheme).isZero();
      assertThat(r.deadlock()).as("%s: no grant after the cut", scheme).isFalse();
      assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
    }
  }

  @Test
  void redlockIsSafeWithThreeOfFiveAndLetsGoInTimeWithTwo() throws Exception {
    CellResult majority = run("S10", "F6-maj");
    // With exactly a majority left, one renewal a node answers later than Redlock's per-node
    // timeout (a loaded machine) costs the lock: then the holder must be told in time, not kept.
    assertThat(Checker.lossNotices(majority.events()).late()).as("3 of 5: told only after another grant").isZero();
    assertThat(majority.violations()).as("3 of 5: two holders").isZero();
    assertThat(majority.verdict()).isEqualTo(Verdict.SAFE);

    CellResult minority = run("S10", "F6-min");
    Checker.LossNotices notices = Checker.lossNotices(minority.events());
    assertThat(notices.told()).as("2 of 5: the holder was told").isPositive();
    assertThat(notices.late()).as("2 of 5: told only after another grant").isZero();
    assertThat(minority.violations()).as("2 of 5: two holders").isZero();
    assertThat(minority.verdict()).isEqualTo(Verdict.SAFE);
  }

  @Test
  void aPlainSetNxPxHolderNeverKnowsAndWorksOnBesideTheNext() throws Exception {
    CellResult r = run("S7", "F6");
    assertThat(Checker.lossNotices(r.events()).told()).as("S7 has no loss signal").isZero();
    assertThat(r.violations()).as("two holders: the cut-off one could not know").isPositive();
    assertThat(r.verdict()).isEqualTo(Verdict.UNSAFE);
  }
}
