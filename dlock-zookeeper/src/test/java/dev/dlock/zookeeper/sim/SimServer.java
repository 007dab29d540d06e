package dev.dlock.zookeeper.sim;

import dev.dlock.testkit.sim.Scheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The ZooKeeper ensemble as one lock's directory sees it: a zxid counter, ephemeral sequential
 * nodes ordered by creation, sessions that expire a session timeout after the leader last touched
 * them (deleting their nodes and firing the watches on those), and one-shot exists-watches whose
 * events go to the watching session in order, after a delay. Each method is one request, run
 * atomically at its arrival. The leader's touch of a session is the adversary's choice, up to
 * {@link Timing#MAX_TOUCH_LAG} before the call's send time, as a follower reports it late.
 */
final class SimServer {
  /** A node: its czxid (which also orders it) and its session and owner. */
  record Node(long czxid, long session, String owner) {}

  /** What a call finds when its session has ended: the client learns of the expiry. */
  static final Object EXPIRED = new Object();

  private final Scheduler sim;
  private final QueueChecks checks;
  private final TreeMap<Long, Node> queue = new TreeMap<>();
  private final Map<Long, Long> touched = new HashMap<>();
  private final Map<Long, Queueing> owners = new HashMap<>();
  private final Map<Long, Set<Long>> watches = new HashMap<>();
  private final Map<Long, Long> lastEvent = new HashMap<>();
  private long zxid = 100;
  private long sessions;
  private long headSince;

  SimServer(Scheduler sim, QueueChecks checks) {
    this.sim = sim;
    this.checks = checks;
  }

  long openSession(Queueing client) {
    long sid = ++sessions;
    owners.put(sid, client);
    touched.put(sid, sim.now());
    sim.at(sim.now() + Timing.SESSION_TIMEOUT, () -> expireIfDue(sid));
    return sid;
  }

  boolean alive(long sid) {
    return touched.containsKey(sid);
  }

  /** The leader hears of the session's call sent at {@code sentAt}, perhaps late. */
  void touch(long sid, long sentAt) {
    Long t = touched.get(sid);
    if (t == null) {
      return; // ended
    }
    long lag = switch (sim.random().nextInt(4)) {
      case 0 -> Timing.MAX_TOUCH_LAG;
      case 1 -> (long) (sim.random().nextDouble() * Timing.MAX_TOUCH_LAG);
      default -> 0;
    };
    long at = Math.max(t, sentAt - lag);
    touched.put(sid, at);
  }

  /** One check per session is pending at a time: a touch since moves the next one on. */
  private void expireIfDue(long sid) {
    Long t = touched.get(sid);
    if (t == null) {
      return;
    }
    if (sim.now() < t + Timing.SESSION_TIMEOUT) {
      sim.at(t + Timing.SESSION_TIMEOUT, () -> expireIfDue(sid));
      return;
    }
    touched.remove(sid);
    sim.trace(() -> "  session " + sid + " expires at the server");
    for (Node n : new ArrayList<>(queue.values())) {
      if (n.session() == sid) {
        remove(n.czxid());
      }
    }
  }

  /** Creates the owner's node; null if the session has ended. */
  Object create(long sid, String owner) {
    if (!alive(sid)) {
      return EXPIRED;
    }
    Node n = new Node(++zxid, sid, owner);
    queue.put(n.czxid(), n);
    if (queue.size() == 1) {
      newHead();
    }
    return new Object[] {n, queue.size() == 1};
  }

  /** The owner's node of this session, if there is one: the adopt after a lost reply. */
  Object find(long sid, String owner) {
    if (!alive(sid)) {
      return EXPIRED;
    }
    for (Node n : queue.values()) {
      if (n.session() == sid && n.owner().equals(owner)) {
        return n;
      }
    }
    return null;
  }

  Object children(long sid) {
    return alive(sid) ? new ArrayList<>(queue.values()) : EXPIRED;
  }

  /** Exists with a watch: the node, or null (no watch set) if it is gone. */
  Object watch(long sid, long czxid) {
    if (!alive(sid)) {
      return EXPIRED;
    }
    Node n = queue.get(czxid);
    if (n != null) {
      watches.computeIfAbsent(czxid, k -> new LinkedHashSet<>()).add(sid); // one watcher per path and session
    }
    return n;
  }

  /** The renewal's sync and exists: true if the node is there as made by this session. */
  Object check(long sid, long czxid) {
    if (!alive(sid)) {
      return EXPIRED;
    }
    Node n = queue.get(czxid);
    return n != null && n.session() == sid;
  }

  Object delete(long sid, long czxid) {
    if (!alive(sid)) {
      return EXPIRED;
    }
    Node n = queue.get(czxid);
    if (n == null || n.session() != sid) {
      return false;
    }
    remove(czxid);
    return true;
  }

  private void remove(long czxid) {
    boolean wasHead = queue.firstKey() == czxid;
    queue.remove(czxid);
    Set<Long> watchers = watches.remove(czxid);
    if (watchers != null) {
      for (long sid : watchers) {
        Queueing c = owners.get(sid);
        long delay = sim.random().nextInt(5) == 0 ? (long) (sim.random().nextDouble() * 4 * Timing.SLOW_LEG)
            : (long) (sim.random().nextDouble() * Timing.FAST_LEG);
        long at = Math.max(lastEvent.getOrDefault(sid, 0L), sim.now() + delay); // in order per session
        lastEvent.put(sid, at);
        sim.at(at, () -> c.deleted(sid, czxid));
      }
    }
    if (wasHead && !queue.isEmpty()) {
      newHead();
    }
  }

  private void newHead() {
    headSince = sim.now();
    Node h = queue.firstEntry().getValue();
    sim.trace(() -> "  head is now " + h);
    checks.newHead(h.czxid(), owners.get(h.session()).id());
  }

  /** The node at the head and since when, or null. */
  Node head() {
    return queue.isEmpty() ? null : queue.firstEntry().getValue();
  }

  long headSince() {
    return headSince;
  }

  @Override
  public String toString() {
    return "queue " + queue.values() + ", live sessions " + touched.keySet();
  }
}
