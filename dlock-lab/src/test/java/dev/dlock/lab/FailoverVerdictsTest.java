package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault F4, failover before replication, on a real master, replica and three Sentinels: dlock's
 * Redis lock on the Sentinel URL without and with {@code waitReplicas=1}, each run as a lab cell
 * with the checker's verdict asserted. One Sentinel set serves both cells: F4 leaves it whole. The
 * cells run with {@link LabSettings#FAILOVER_LEASE}, which outlasts the failover as a production
 * lease does.
 *
 * <p>What the runs show. Without WAIT, worker 1 holds a grant the replica never saw when the master
 * dies, with nearly a whole lease left, and the promoted replica grants the lock again with a
 * higher token. Worker 1 is told of its loss when its client reaches the promoted replica: dlock
 * re-checks every lease after a reconnect or a {@code +switch-master}, long before the lease's
 * deadline. Every client reconnects on the same schedule (from the kill, at most a second apart),
 * so whether another worker is granted the lock first, and two hold it at once until worker 1's
 * reconnect, is a race that the other workers win in most runs and worker 1 in some. With WAIT the
 * master grants nothing it cannot replicate: every acquire during the cut fails with an error.
 */
class FailoverVerdictsTest {
  private static final long LEASE_MS = LabSettings.FAILOVER_LEASE.toMillis();
  private static final double MS = 1e6;
  /** The longest wait between two of a dlock Redis client's reconnect attempts. */
  private static final long RECONNECT_MS = 1000;

  @RegisterExtension
  static final LabCells lab = new LabCells("lab-failover");

  @Test
  void withoutWaitTheHolderOfTheLostGrantIsToldAtItsReconnectAndAnotherWorkerMayHoldFirst() throws Exception {
    CellResult r = run("S14");
    Moments m = new Moments(r.events());
    Event held = m.last(e -> e.process().equals("w1") && e.op().equals("enter") && e.nanos() < m.kill, "w1 enter");
    long nowMicros = System.currentTimeMillis() * 1000;
    assertThat(m.cutClock).as("the master's clock at the cut (us), read with TIME on this host's clock")
        .isBetween(nowMicros - 600_000_000L, nowMicros);
    assertThat(held.token()).as("worker 1's token at the kill against the master's clock at the cut (us): a grant"
        + " the replica never saw").isGreaterThan(m.cutClock);
    assertThat(held.nanos()).as("worker 1 entered after the cut").isGreaterThan(m.cut);
    assertThat(m.killTtl).as("the master's time to live of worker 1's grant at the kill, ms (lease %d ms)", LEASE_MS)
        .isGreaterThan(LEASE_MS - 1000);

    Event lost = m.first(e -> e.process().equals("w1") && e.op().equals("lost") && e.nanos() > m.kill, "w1 lost");
    Event next = m.first(e -> !e.process().equals("w1") && e.op().equals("acquire") && e.type().equals("ok")
        && e.nanos() > m.kill, "another worker's grant after the kill");
    long toldMs = Math.round((lost.nanos() - m.kill) / MS);
    long nextMs = Math.round((next.nanos() - m.kill) / MS);
    Checker.LossNotices notices = Checker.lossNotices(m.events);
    String timing = String.format("worker 1 told %d ms after the kill, %s granted %d ms after it (promotion seen"
        + " after %d ms): %d overlapping pair(s), %.1f ms", toldMs, next.process(), nextMs,
        Math.round((m.promoted - m.kill) / MS), r.violations(), r.overlapNanos() / MS);
    System.out.println("S14 x F4: " + timing + "; tokens " + held.token() + " then " + next.token());

    assertThat(next.token()).as("the promoted replica's first grant to another worker against worker 1's: tokens"
        + " do not go backwards").isGreaterThan(held.token());
    assertThat(notices.told()).as("loss notices (%s)", timing).isEqualTo(1);
    assertThat(toldMs).as("told at its reconnect, before the deadline of the lease it had at the kill (%s)", timing)
        .isLessThan(m.killTtl - 200);
    if (r.violations() > 0) {
      assertThat(notices.late()).as("two holders at once, so worker 1 was told after another worker's grant (%s)",
          timing).isEqualTo(1);
      assertThat(toldMs - nextMs).as("how late worker 1 was told: within its client's reconnect period (1 s) of"
          + " the other's grant (%s)", timing).isLessThan(RECONNECT_MS + 500);
    } else {
      assertThat(notices.late()).as("one holder at a time, so worker 1 was told before another worker's grant (%s)",
          timing).isZero();
    }
    assertThat(r.staleAccepted()).as("stale writes the fenced resource accepted").isZero();
    assertThat(r.deadlock()).as("no grant after the failover").isFalse();
    assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
  }

  @Test
  void withWaitTheMasterGrantsNothingItCannotReplicateAndTheAcquireFails() throws Exception {
    CellResult r = run("S14-wait");
    Moments m = new Moments(r.events());
    assertThat(m.between("acquire", "ok", m.cut, m.kill)).as("grants between the cut and the kill").isEmpty();
    List<Event> refused = m.between("acquire", "fail", m.cut, m.kill).stream()
        .filter(e -> !e.info().equals("timeout")).toList();
    // "fewer than 1 replica(s) acknowledged the grant", or "no reply within ..." when a WAIT outlasts
    // the caller's deadline (Redis answers a timed-out WAIT on its next 100 ms tick, and a blocked
    // WAIT holds up the connection's next command): the master is up all along either way.
    assertThat(refused).as("acquires that failed with an error during the cut").isNotEmpty();
    System.out.println("S14-wait x F4: " + refused.size() + " acquire(s) failed with an error during the cut, "
        + r.violations() + " overlapping pair(s), " + r.staleAccepted() + " stale write(s) accepted, loss notices "
        + Checker.lossNotices(m.events));
    assertThat(r.violations()).as("two holders at once").isZero();
    assertThat(r.staleAccepted()).as("stale writes the fenced resource accepted").isZero();
    assertThat(r.deadlock()).as("no grant once the old master was back as a replica").isFalse();
    assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
  }

  private static CellResult run(String scheme) throws Exception {
    return lab.run(scheme, "F4");
  }

  /** The injector's moments of one F4 run, and the workers' events around them. */
  private static final class Moments {
    private final List<Event> events;
    private final long cut;
    private final long cutClock;
    private final long kill;
    private final long killTtl;
    private final long promoted;

    Moments(List<Event> events) {
      this.events = Checker.sorted(events);
      Event cutEvent = injector("invoke", "F4 server");
      Event killEvent = injector("info", "F4 kill master");
      this.cut = cutEvent.nanos();
      this.cutClock = cutEvent.token();
      this.kill = killEvent.nanos();
      this.killTtl = killEvent.token();
      this.promoted = injector("ok", "F4 server").nanos();
    }

    private Event injector(String type, String info) {
      return first(e -> e.process().equals("injector") && e.type().equals(type) && e.info().equals(info),
          "injector " + type + " '" + info + "'");
    }

    List<Event> between(String op, String type, long from, long to) {
      return events.stream().filter(e -> e.op().equals(op) && e.type().equals(type) && e.nanos() > from
          && e.nanos() < to).toList();
    }

    Event first(Predicate<Event> which, String what) {
      return events.stream().filter(which).findFirst().orElseThrow(() -> new AssertionError("no " + what
          + " in the run; the injector's events: " + injectorEvents()));
    }

    Event last(Predicate<Event> which, String what) {
      return events.stream().filter(which).reduce((a, b) -> b).orElseThrow(() -> new AssertionError("no " + what
          + " in the run; the injector's events: " + injectorEvents()));
    }

    private List<Event> injectorEvents() {
      return events.stream().filter(e -> e.process().equals("injector")).toList();
    }
  }
}
