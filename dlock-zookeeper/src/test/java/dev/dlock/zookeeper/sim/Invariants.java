package dev.dlock.zookeeper.sim;

import java.util.List;

/**
 * The properties checked after every step: at most one client that counts its grant valid
 * (mutual exclusion), and, stronger, none still counting a grant valid when the server makes
 * another node first; each grant's token above every earlier one; and no live waiter heading the
 * queue unserved for longer than {@link Timing#STRAND_BOUND}. Remembers the first violation.
 */
final class Invariants {
  private List<SimClient> clients = List.of();
  private long lastToken;
  private String lastOwner = "";
  private String violation;

  void watch(List<SimClient> clients) {
    this.clients = clients;
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

  /** The server made node {@code czxid} first: whoever holds another must know it lost it. */
  void newHead(long czxid, SimClient owner) {
    for (SimClient c : clients) {
      if (c.holdsValid() && c.node() != czxid) {
        fail("holder not told: node " + czxid + " of " + owner.id() + " is first while " + c.holding()
            + " still counts its grant valid");
      }
    }
  }

  void check(long now, SimServer server) {
    SimClient holder = null;
    for (SimClient c : clients) {
      if (c.holdsValid()) {
        if (holder != null) {
          fail("two holders at " + now + ": " + holder.holding() + " and " + c.holding());
        }
        holder = c;
      }
    }
    SimServer.Node head = server.head();
    if (head == null) {
      return;
    }
    for (SimClient c : clients) {
      if (c.waitsLive(head.czxid(), head.session())) {
        long since = Math.max(server.headSince(), c.waitingSince());
        if (now - since > Timing.STRAND_BOUND) {
          fail("stranded at " + now + ": " + c.id() + " heads the queue with node " + head.czxid() + " since "
              + since + " and still waits, over the bound of " + Timing.STRAND_BOUND + " us");
        }
      }
    }
  }
}
