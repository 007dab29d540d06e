package dev.dlock.zookeeper.sim;

import java.util.List;

/**
 * A client's acquire path, as ZooKeeperBackend and QueueNodes queue and the engine's waiting loop
 * waits: it creates its node (adopting it after a lost reply), lists the queue, holds when first,
 * or watches its predecessor and waits for the event or the re-poll. A waiter whose watched head
 * was deleted holds without listing again, counted from its last answered call, as the backend's
 * grant is (QueueNodes.grantFound; the old way is Bug.HEAD_GONE_UNBACKED).
 */
final class Queueing {
  private final ClientState s;
  private final Holding holding;
  /** Made once: it goes with every grant. */
  private final Runnable again = this::again;
  private long watched;
  private boolean watchedIsHead;
  private boolean headGone;
  private long attemptSentAt;
  private long waitingSince;

  Queueing(ClientState s, Holding holding) {
    this.s = s;
    this.holding = holding;
  }

  String id() {
    return s.id;
  }

  long waitingSince() {
    return waitingSince;
  }

  void acquire() {
    s.owner = s.newOwner();
    waitingSince = s.sim.now();
    s.sim.trace(() -> s.id + " wants the lock as " + s.owner);
    tryAcquire();
  }

  /** One tryAcquire of the engine: the grant counts from this send time. */
  void tryAcquire() {
    s.phase = Phase.QUEUEING;
    attemptSentAt = s.sim.now();
    s.polls++;
    queue();
  }

  private void queue() {
    if (s.node == 0) {
      if (s.uncertain) {
        s.call(() -> "adopt " + s.owner, () -> s.server.find(s.session, s.owner), r -> {
          s.uncertain = false;
          if (r != null) {
            s.node = ((SimServer.Node) r).czxid();
            s.sim.trace(() -> "  " + s.id + " adopts node " + s.node);
          }
          queue();
        }, sent -> { });
        return;
      }
      headGone = false;
      s.uncertain = true;
      s.call(() -> "create for " + s.owner, () -> s.server.create(s.session, s.owner), r -> {
        Object[] a = (Object[]) r;
        s.uncertain = false;
        s.node = ((SimServer.Node) a[0]).czxid();
        if ((Boolean) a[1]) {
          replied();
          hold();
        } else {
          list();
        }
      }, sent -> { });
      return;
    }
    if (headGone) {
      // No call in this try backs the grant: count it from the last call that reached the server.
      if (!s.bugs.contains(Bug.HEAD_GONE_UNBACKED)) {
        attemptSentAt = Math.min(attemptSentAt, s.lastContact);
      }
      hold();
      return;
    }
    list();
  }

  @SuppressWarnings("unchecked")
  private void list() {
    s.call(() -> "list", () -> s.server.children(s.session), r -> {
      List<SimServer.Node> q = (List<SimServer.Node>) r;
      int i = -1;
      for (int k = 0; k < q.size(); k++) {
        if (q.get(k).czxid() == s.node) {
          i = k;
        }
      }
      if (i < 0) {
        s.node = 0;
        queue();
      } else if (i == 0) {
        replied();
        hold();
      } else {
        watch(q, i);
      }
    }, sent -> { });
  }

  private void watch(List<SimServer.Node> q, int i) {
    boolean head = s.bugs.contains(Bug.WATCH_HEAD) || i == 1;
    long target = s.bugs.contains(Bug.WATCH_HEAD) ? q.get(0).czxid() : q.get(i - 1).czxid();
    watched = target;
    watchedIsHead = head;
    headGone = false;
    s.call(() -> "watch " + target, () -> s.server.watch(s.session, target), w -> {
      if (w == null) {
        queue();
      } else {
        await();
      }
    }, sent -> { });
  }

  private void await() {
    s.phase = Phase.WAITING;
    int mine = s.polls;
    if (!s.bugs.contains(Bug.NO_REPOLL)) {
      s.later(Timing.MAX_POLL, () -> {
        if (s.phase == Phase.WAITING && s.polls == mine) {
          tryAcquire();
        }
      });
    }
  }

  /** A watch event: lost if the connection it was set on dropped, else a wake-up. */
  void deleted(long sid, long czxid) {
    int conn = s.connection;
    s.act(() -> {
      if (sid != s.session || conn != s.connection || !s.connected) {
        s.sim.trace(() -> "  " + s.id + " watch event for " + czxid + " lost");
        return;
      }
      s.sim.trace(() -> s.id + " event: " + czxid + " deleted");
      if (czxid == watched && watchedIsHead) {
        headGone = true;
      }
      if (s.phase == Phase.WAITING) {
        tryAcquire();
      }
    });
  }

  /** The broken model counts a grant from the reply that made it (Bug.VALID_FROM_REPLY). */
  private void replied() {
    if (s.bugs.contains(Bug.VALID_FROM_REPLY)) {
      attemptSentAt = s.sim.now();
    }
  }

  private void hold() {
    holding.grant(attemptSentAt, again);
  }

  /** After a release, the next acquisition comes a while later. */
  private void again() {
    s.later((long) (s.sim.random().nextDouble() * Timing.LEASE), this::acquire);
  }
}
