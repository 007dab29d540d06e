package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The articles' claims and dlock's README, each run as a lab cell on real servers under its real
 * fault, with the checker's verdict asserted. A verdict that changes is a finding: either the code
 * or the claim is wrong. Every run's verdict must also be the one docs/lab-matrix.tsv records,
 * which the guide cites ({@link Recorded}).
 */
class ExpectedVerdictsTest {
  @RegisterExtension
  static final LabCells lab = new LabCells("lab-verdicts");

  private static CellResult run(String scheme, String fault, String workload) throws Exception {
    return lab.run(scheme, fault, workload);
  }

  @Test
  void withoutALockBuyersOversell() throws Exception {
    CellResult r = run("none", "none", "flash");
    assertThat(r.lostUpdates()).as("lost updates without a lock").isPositive();
    assertThat(r.verdict()).isEqualTo(Verdict.UNSAFE);
  }

  @Test
  void s4DeadlocksWhenTheHolderDiesBetweenSetnxAndExpire() throws Exception {
    CellResult r = run("S4", "F1-gap", "critical");
    assertThat(r.deadlock()).as("no grant after the kill").isTrue();
    assertThat(r.verdict()).isEqualTo(Verdict.STUCK);
  }

  @Test
  void s5GivesTwoHoldersUnderClockSkew() throws Exception {
    CellResult r = run("S5", "skew", "critical");
    assertThat(r.violations()).as("two holders at once").isPositive();
    assertThat(r.verdict()).isEqualTo(Verdict.UNSAFE);
  }

  @Test
  void s6LetsALateDelFreeAnotherClientsLock() throws Exception {
    CellResult r = run("S6", "F2", "critical");
    assertThat(r.foreignReleases()).as("releases that freed another worker's lock").isPositive();
    assertThat(r.verdict()).isEqualTo(Verdict.UNSAFE);
  }

  @Test
  void s7LetsALateDelFreeAnotherClientsLock() throws Exception {
    CellResult r = run("S7", "F2", "critical");
    assertThat(r.foreignReleases()).as("releases that freed another worker's lock").isPositive();
    assertThat(r.staleAccepted()).as("the paused holder's late write, taken").isPositive();
    assertThat(r.verdict()).isEqualTo(Verdict.UNSAFE);
  }

  @Test
  void s8DoneWrongFreesAnotherClientsLockWhenPausedBetweenGetAndDel() throws Exception {
    CellResult r = run("S8-wrong", "F2", "critical");
    assertThat(r.foreignReleases()).as("releases that freed another worker's lock").isPositive();
    assertThat(r.verdict()).isEqualTo(Verdict.UNSAFE);
  }

  @Test
  void dlockOnRedisGivesTwoHoldersUnderAPauseButTheTokenRejectsEveryStaleWrite() throws Exception {
    CellResult r = run("S8", "F2", "critical");
    assertThat(r.violations()).as("two holders: the paused one could not know").isPositive();
    assertThat(r.staleAccepted()).as("stale writes the fenced resource accepted").isZero();
    assertThat(r.staleRejected()).as("the paused holder's late write, refused for its token").isPositive();
    assertThat(r.foreignReleases()).isZero();
    assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
  }

  @Test
  void dlockOnPostgresAndZooKeeperGiveTwoHoldersUnderAPauseButTheTokenRejectsEveryStaleWrite() throws Exception {
    for (String scheme : List.of("S1-pg", "S12")) {
      CellResult r = run(scheme, "F2", "critical");
      assertThat(r.violations()).as("%s: two holders", scheme).isPositive();
      assertThat(r.staleAccepted()).as("%s: stale writes accepted", scheme).isZero();
      assertThat(r.staleRejected()).as("%s: the paused holder's write, refused", scheme).isPositive();
      assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
    }
  }

  @Test
  void dlockOnRedisIsSafeWhenTheHolderIsKilled() throws Exception {
    assertExclusive(run("S8", "F1", "critical"));
  }

  @Test
  void dlockOnRedisIsSafeWhenTheServerPauses() throws Exception {
    assertExclusive(run("S8", "F8", "critical"));
  }

  @Test
  void dlockOnRedisWithAofAlwaysIsSafeAcrossARestart() throws Exception {
    assertExclusive(run("S8", "F3-aof", "critical"));
  }

  @Test
  void dlockOnRedisWithoutPersistenceKeepsTokensGoingUpAcrossARestart() throws Exception {
    CellResult r = run("S8", "F3", "critical");
    assertThat(r.staleAccepted()).as("stale writes the fenced resource accepted").isZero();
    assertThat(r.foreignReleases()).isZero();
    assertThat(r.deadlock()).isFalse();
  }

  @Test
  void dlockOnPostgresIsSafeWhenTheServerPauses() throws Exception {
    assertExclusive(run("S1-pg", "F8", "critical"));
  }

  @Test
  void dlockOnZooKeeperIsSafeWhenTheServerPauses() throws Exception {
    assertExclusive(run("S12", "F8", "critical"));
  }

  @Test
  void theHerdWakesEveryWaiterWhereDlockOnZooKeeperWakesOne() throws Exception {
    CellResult herd = run("S11", "none", "critical");
    CellResult queue = run("S12", "none", "critical");
    assertThat(herd.wakeupsPerRelease()).as("S11 wake-ups per release").isGreaterThan(1.5);
    assertThat(queue.wakeupsPerRelease()).as("S12 wake-ups per release").isLessThanOrEqualTo(1.0);
  }

  private static void assertExclusive(CellResult r) {
    assertThat(r.violations()).as("two holders at once").isZero();
    assertThat(r.staleAccepted()).isZero();
    assertThat(r.foreignReleases()).isZero();
    assertThat(r.deadlock()).as("a grant after the fault").isFalse();
    assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
  }
}
