package dev.dlock.redis.sim;

import java.util.List;

/**
 * The properties checked after every step: at most one holder whose grant its client counts
 * valid (mutual exclusion), each grant's token above every earlier one, and no live waiter left
 * waiting on a free lock longer than the stated bound. Remembers the first violation.
 */
final class Invariants {
  private final long strandBound;
  private final boolean fair;
  private long lastCrash;
  private long lastToken;
  private String lastOwner = "";
  private String violation;

  Invariants(long strandBound, boolean fair) {
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

  String violation() {
    return violation;
  }

  private void fail(String what) {
    if (violation == null) {
      violation = what;
    }
  }

  void granted(String owner, long token) {
    if (token <= lastToken) {
      fail("token not increasing: " + owner + " got " + token + " after " + lastOwner + " got " + lastToken);
    }
    lastToken = Math.max(lastToken, token);
    lastOwner = owner;
  }

  /** {@code freeSince}: since when the lock key is absent at the server, or -1 while it exists. */
  void check(long now, List<SimClient> clients, long freeSince) {
    SimClient holder = null;
    for (SimClient c : clients) {
      if (c.holdsValid()) {
        if (holder != null) {
          fail("two holders at " + now + ": " + holder.holding() + " and " + c.holding());
        }
        holder = c;
      }
    }
    if (freeSince < 0) {
      return;
    }
    for (SimClient c : clients) {
      long since = Math.max(Math.max(freeSince, c.waitingSince()), fair ? lastCrash : 0);
      if (c.waits() && now - since > strandBound) {
        fail("stranded at " + now + ": " + c.id() + " waits since " + c.waitingSince()
            + " and the lock is free since " + freeSince + ", over the bound of " + strandBound + " us");
      }
    }
  }
}
