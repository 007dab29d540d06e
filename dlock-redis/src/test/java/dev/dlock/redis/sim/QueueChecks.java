package dev.dlock.redis.sim;

import dev.dlock.testkit.sim.Invariants;
import java.util.List;

/**
 * The Redis queue's checks after every step: the shared invariants' one holder, and no live waiter
 * left waiting on a free lock longer than the stated bound; for the fair lock counted from the last
 * client's death or freeze too, as a dead waiter ahead keeps its place for the waiter timeout.
 */
final class QueueChecks {
  private final Invariants invariants;
  private final long strandBound;
  private final boolean fair;
  private long lastCrash;

  QueueChecks(Invariants invariants, long strandBound, boolean fair) {
    this.invariants = invariants;
    this.strandBound = strandBound;
    this.fair = fair;
  }

  /**
   * A client died, or froze until {@code until}. A dead or frozen waiter ahead in a fair queue
   * keeps its place for up to the waiter timeout, so a fair waiter's bound counts from then.
   */
  void crashed(long until) {
    lastCrash = Math.max(lastCrash, until);
  }

  /** {@code freeSince}: since when the lock key is absent at the server, or -1 while it exists. */
  void check(long now, List<SimClient> clients, long freeSince) {
    invariants.oneHolder(now, clients);
    if (freeSince < 0) {
      return;
    }
    for (SimClient c : clients) {
      long since = Math.max(Math.max(freeSince, c.waitingSince()), fair ? lastCrash : 0);
      if (c.waits()) {
        invariants.notStranded(now, since, strandBound, () -> c.id() + " waits since " + c.waitingSince()
            + " and the lock is free since " + freeSince);
      }
    }
  }
}
