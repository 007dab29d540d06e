package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * dlock's ZooKeeper lock on a three-server ensemble (S12-ens): a server killed while a worker holds
 * the lock (F5, F5-holder), and the ensemble split with the holder on the majority or the minority
 * side (F6-maj, F6-min). dlock's rule: never two holders, as a holder that loses the lock is told
 * before anyone else is granted it.
 *
 * <p>Where the holder's server is a follower that dies or is cut off (F5-holder, F6-min), the
 * leader may not have heard of the holder's last renewals (a follower passes a session's requests
 * on only in its next ping reply); the holder counts its hold valid for only as long as the leader
 * keeps the session whatever it heard, so it is told in time at any moment of the fault.
 * {@link ZooKeeperEnsembleTest} times the cut to the worst moment, right after a renewal.
 *
 * <p>Where the holder keeps its server and the leader (F6-maj), it keeps its lock: no loss is told
 * in the whole run, and the hold that spans the cut ends with the holder's own release, which
 * frees its lock at the server. That cell runs on a session of four leases
 * ({@link LabSettings#majoritySession}) rather than one. Why: with a one-second session the client
 * counts a hold valid for only 400 ms after each renewal's send, so a stall of the machine of about
 * 250 ms (seen on the 2-core CI runner: a renewal's sync timed out) cost the lock in about one run
 * of four, which says nothing of the cut; with four seconds a stall must last about a second. Why
 * the release too: with the longer session a holder the cut does cost its lock is not always told
 * within its 2 s hold (its server answers for up to half a second after the cut, and the hold then
 * counts 1.6 s from the last answer), but its release then cannot reach a quorum, or finds the lock
 * gone. Not "a loss only from a timed-out renewal": a renewal that hangs through the cut is how a
 * majority-side holder would lose, so that would excuse the very failure the cell is for.
 */
class EnsembleVerdictsTest {
  @RegisterExtension
  static final LabCells lab = new LabCells("lab-ensemble");

  private static CellResult run(String fault) throws Exception {
    return lab.run("S12-ens", fault);
  }

  /**
   * Whether the lock survives is not asserted: with the lab's one-second session, the ensemble
   * serves nothing for about 0.6 s after the leader dies (an election and a sync), and the
   * ZooKeeper client waits a random time of up to a second before each reconnect; so the holder
   * often cannot show its session alive in time and is told it lost the lock. In time, as the new
   * leader gives every session a whole timeout: that is what is checked. (With a four-second
   * session the lock survived every try.)
   */
  @Test
  void theLeadersCrashGivesNoSecondHolderAndNoLateNotice() throws Exception {
    assertSafe("F5", run("F5"));
  }

  @Test
  void theCrashOfTheHoldersServerGivesNoSecondHolderAndNoLateNotice() throws Exception {
    assertSafe("F5-holder", run("F5-holder"));
  }

  @Test
  void aHolderOnTheMajoritySideKeepsItsLock() throws Exception {
    CellResult r = run("F6-maj");
    assertThat(Checker.lossNotices(r.events()).told())
        .as("F6-maj: a loss told, on a session of %s", LabCells.SETTINGS.majoritySession()).isZero();
    assertThat(releaseOfTheHoldAcrossTheCut(r)).as("F6-maj: the holder's release of the hold across the cut")
        .isEqualTo("release ok freed=" + Checker.windows(r.events()).get(0).target());
    assertSafe("F6-maj", r);
  }

  @Test
  void aHolderOnTheMinoritySideIsToldItLostTheLockAndTheMajorityGrantsItAgain() throws Exception {
    CellResult r = run("F6-min");
    assertThat(Checker.lossNotices(r.events()).told()).as("F6-min: the cut-off holder was told").isPositive();
    assertThat(grantsToOthersDuringTheCut(r)).as("F6-min: grants on the majority side while the holder is cut off")
        .isPositive();
    assertSafe("F6-min", r);
  }

  private static void assertSafe(String fault, CellResult r) {
    assertThat(r.violations()).as("%s: two holders at once", fault).isZero();
    assertThat(Checker.lossNotices(r.events()).late()).as("%s: told only after another grant", fault).isZero();
    assertRecovered(fault, r);
  }

  /** What holds at any moment of the fault: a grant after it, and the fence kept every late write out. */
  private static void assertRecovered(String fault, CellResult r) {
    Checker.LossNotices notices = Checker.lossNotices(r.events());
    System.out.printf("%s: %d loss notice(s), %d late; %d overlapping hold(s)%n", fault, notices.told(),
        notices.late(), r.violations());
    assertThat(r.deadlock()).as("%s: no grant after the fault", fault).isFalse();
    assertThat(r.staleAccepted()).as("%s: stale writes accepted", fault).isZero();
    assertThat(r.verdict()).as(fault).isEqualTo(Verdict.SAFE);
  }

  /** The holder's first release after the cut began, as {@code release <type> <info>}. */
  private static String releaseOfTheHoldAcrossTheCut(CellResult r) {
    Checker.Window cut = Checker.windows(r.events()).get(0);
    return r.events().stream().filter(e -> e.process().equals(cut.target()) && e.op().equals("release"))
        .filter(e -> e.nanos() > cut.start()).findFirst().map(e -> "release " + e.type() + " " + e.info())
        .orElse("no release");
  }

  /** Grants to workers other than the fault's target (the holder) inside the fault's window. */
  private static long grantsToOthersDuringTheCut(CellResult r) {
    Checker.Window cut = Checker.windows(r.events()).get(0);
    return r.events().stream().filter(e -> e.op().equals("acquire") && e.type().equals("ok"))
        .filter(e -> !e.process().equals(cut.target()))
        .filter(e -> e.nanos() > cut.start() && e.nanos() < cut.end()).count();
  }
}
