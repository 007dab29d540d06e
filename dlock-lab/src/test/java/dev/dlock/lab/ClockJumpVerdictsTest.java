package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * F7, a wall clock that jumps forward mid-run (libfaketime, Debian's faketime package: without it
 * these fail and say so), and Redlock's pause: the argument of Kleppmann's "How to do distributed
 * locking", run for real. Redlock loses mutual exclusion, and the fencing token is what keeps the
 * resource safe.
 */
class ClockJumpVerdictsTest {
  @RegisterExtension
  static final LabCells lab = new LabCells("lab-clock-jumps");

  private static CellResult run(String scheme, String fault) throws Exception {
    CellResult r = lab.run(scheme, fault);
    Checker.LossNotices notices = Checker.lossNotices(r.events());
    System.out.printf("%s x %s: violations %d, overlap %d ms, stale accepted/rejected %d/%d, foreign %d,"
        + " loss notices %d (late %d), grants %d, %s%n", scheme, fault, r.violations(), r.overlapNanos() / 1_000_000,
        r.staleAccepted(), r.staleRejected(), r.foreignReleases(), notices.told(), notices.late(), r.grants(),
        r.verdict());
    return r;
  }

  @Test
  void redlockLosesTheLockWhenOneNodesClockJumpsButTheTokenRejectsTheStaleWrite() throws Exception {
    CellResult r = run("S10", "F7");
    assertThat(r.violations()).as("two holders: C let the holder's key expire, and C, D, E made a majority")
        .isPositive();
    assertThat(r.staleAccepted()).as("stale writes the fenced resource accepted").isZero();
    assertThat(r.staleRejected()).as("the holder's late write, refused for its token").isPositive();
    assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
    // dlock's watchdog tells the holder at its next renewal, when C reports the key gone; whether
    // that comes before or after the other grant depends on where the jump falls between renewals.
    assertThat(Checker.lossNotices(r.events()).told()).as("the holder, told of its loss during its gap").isPositive();
  }

  @Test
  void s5GivesTwoHoldersWhenAClientsClockJumps() throws Exception {
    CellResult r = run("S5", "F7");
    assertThat(r.violations()).as("two holders at once").isPositive();
    assertThat(r.verdict()).isEqualTo(Verdict.UNSAFE);
  }

  @Test
  void redlockGivesTwoHoldersUnderAPauseButTheTokenRejectsTheStaleWrite() throws Exception {
    CellResult r = run("S10", "F2");
    assertThat(r.violations()).as("two holders: the paused one could not know").isPositive();
    assertThat(r.staleAccepted()).as("stale writes the fenced resource accepted").isZero();
    assertThat(r.staleRejected()).as("the paused holder's late write, refused for its token").isPositive();
    assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
  }
}
