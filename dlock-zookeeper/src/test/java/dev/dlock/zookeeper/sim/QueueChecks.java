package dev.dlock.zookeeper.sim;

import dev.dlock.testkit.sim.Invariants;
import java.util.List;

/**
 * The ZooKeeper queue's checks on top of the shared invariants: none still counting a grant valid
 * when the server makes another node first (stronger than one holder), and no live waiter heading
 * the queue unserved for longer than {@link Timing#STRAND_BOUND}.
 */
final class QueueChecks {
  private final Invariants invariants;
  private List<SimClient> clients = List.of();

  QueueChecks(Invariants invariants) {
    this.invariants = invariants;
  }

  void watch(List<SimClient> clients) {
    this.clients = clients;
  }

  /** The server made node {@code czxid} first: whoever holds another must know it lost it. */
  void newHead(long czxid, String owner) {
    for (SimClient c : clients) {
      if (c.holdsValid() && c.node() != czxid) {
        invariants.fail("holder not told: node " + czxid + " of " + owner + " is first while " + c.holding()
            + " still counts its grant valid");
      }
    }
  }

  void check(long now, SimServer server) {
    invariants.oneHolder(now, clients);
    SimServer.Node head = server.head();
    if (head == null) {
      return;
    }
    for (SimClient c : clients) {
      if (c.waitsLive(head.czxid(), head.session())) {
        long since = Math.max(server.headSince(), c.waitingSince());
        invariants.notStranded(now, since, Timing.STRAND_BOUND,
            () -> c.id() + " heads the queue with node " + head.czxid() + " since " + since + " and still waits");
      }
    }
  }
}
