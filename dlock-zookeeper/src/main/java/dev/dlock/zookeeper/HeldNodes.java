package dev.dlock.zookeeper;

import dev.dlock.BackendUnavailableException;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * Watches and checks the nodes of this client's grants, of every kind. Why: a grant is its node,
 * and a node can go while its session lives on, deleted by an administrator, a cleanup script or
 * a client with the same credentials; the next waiter is then granted at once. So each node held
 * past {@link #GUARD_DELAY_NANOS} carries a watch (this one object, found again by path, so that a
 * grant handed to another owner of this client keeps it), and its deletion is reported lost as
 * soon as the event comes, or, for a deletion before the watch, by the exists that sets it: within
 * one and a half delays and a round trip either way.
 * A renewal must prove, as of a moment after it was sent, that each node still exists as created
 * by the live session, so that the engine may count the hold valid from that send time for
 * {@link ZkSession#lease()}. It is one sync (which passes through the leader, as that bound
 * needs), plus an exists only for the nodes whose watch is not known to be in place (its exists
 * not answered yet, failed, or being set again after the watch fired on a data change); so a
 * round costs one request however many holds. Why a watched node needs no exists: the server fires
 * a watch as it applies the change, writing the event to the session's one connection ahead of
 * the answer to any request it handles later, the sync included (a follower applies every change
 * the leader committed before the sync, then answers it); the client reads that connection in
 * order, and its one event thread runs watch events and the callbacks of answers in the order they
 * came ("watches are ordered with respect to other events, other watches, and asynchronous
 * replies", ZooKeeper's programmer's guide). So once the sync's answer is handled, every watched
 * node the server deleted before the sync has been marked lost, and a node still marked watched
 * existed when the sync was served. A reconnect within the session keeps the watches: the client
 * sets them again on the new server, which fires at once those whose node went meanwhile, ahead
 * of the answers to later requests. A new session drops them, and the grants with them. (A server
 * sends no event to a client that may not read the node: someone who first takes that right away
 * with a setACL, which fires no watch, then deletes the node, goes unseen until the session ends;
 * an exists of every node each round, which reads no ACL, was the price of seeing that.) Losses are
 * reported on the session's own thread, never on ZooKeeper's event thread, where a holder's loss
 * callback could stall every watch.
 */
final class HeldNodes implements Watcher {
  /**
   * How long a grant is held before its node gets the watch, unless a test sets another delay. Why
   * wait: most holds are shorter, and end without that request, which was a third of the requests
   * of an uncontended lock and unlock; a deletion of a node whose watch is not yet set is found by
   * the exists that sets it. Due times are read from the session's clock, the engine's, so that
   * they follow a test's virtual time; the sweeps are scheduled on the system's, and a sweep that
   * finds nothing due yet looks again half a delay later.
   */
  static final long GUARD_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final ZkSession session;
  private final Map<String, Contender> contenders;
  private volatile @Nullable BackendContext context;
  private volatile long guardDelayNanos = GUARD_DELAY_NANOS;
  /** Grants whose watch is not yet sent, each with the time of the session's clock it is due at. */
  private final Queue<Due> due = new ConcurrentLinkedQueue<>();
  /** A sweep is scheduled, or running. */
  private final AtomicBoolean sweepSet = new AtomicBoolean();

  private record Due(Contender contender, long zxid, long at) {}

  HeldNodes(ZkSession session, Map<String, Contender> contenders) {
    this.session = session;
    this.contenders = contenders;
  }

  void start(BackendContext context) {
    this.context = context;
  }

  /**
   * Has the node of a grant just made watched once the grant has been held for
   * {@link #GUARD_DELAY_NANOS} (up to half as long again, as sweeps are spaced), if it still is;
   * without waiting.
   */
  void watch(Contender c) {
    long delay = guardDelayNanos;
    due.add(new Due(c, c.zxid, session.now() + delay));
    if (sweepSet.compareAndSet(false, true)) {
      session.later(this::sweep, delay);
    }
  }

  /** For tests: the delay of the watches of later grants. */
  void guardDelay(Duration delay) {
    guardDelayNanos = delay.toNanos();
  }

  /** On the session's thread: watches the due grants still held unwatched, then waits for the next. */
  private void sweep() {
    long now = session.now();
    try {
      for (Due d = due.peek(); d != null && d.at - now <= 0; d = due.peek()) {
        due.poll();
        Contender c = d.contender;
        if (!session.isClosed() && contenders.get(c.owner) == c && c.granted && !c.lost && !c.leaving
            && c.zxid == d.zxid && c.guarded.get() != d.zxid) {
          guard(c);
        }
      }
    } finally {
      sweepAgain(now);
    }
  }

  // Why half a delay at least between sweeps: grants come far more often than that, and a sweep per
  // grant would wake the session's thread for each.
  private void sweepAgain(long now) {
    Due next = due.peek();
    if (next != null) {
      session.later(this::sweep, Math.max(guardDelayNanos / 2, next.at - now));
      return;
    }
    sweepSet.set(false);
    if (!due.isEmpty() && sweepSet.compareAndSet(false, true)) { // one added after the peek above
      session.later(this::sweep, 0);
    }
  }

  /** Sends the exists that sets the watch; a node gone already is reported lost. */
  private void guard(Contender c) {
    ZooKeeper zk;
    try {
      zk = session.zk();
    } catch (Exception e) {
      return; // no connection: the renewal, or the end of the session, will tell
    }
    long zxid = c.zxid;
    Requests.existsAsync(zk, c.createdNode(), this, stat -> {
      if (!watched(c, zxid, stat)) {
        lose(c, "was gone when its watch was set, soon after it was granted");
      }
    });
  }

  /**
   * Called with an exists answer, on the event thread in order with the watch events: marks the
   * watch set on the node of czxid {@code zxid} in place if the answer shows that node; false if not.
   */
  private static boolean watched(Contender c, long zxid, @Nullable Stat stat) {
    if (stat == null || stat.getCzxid() != zxid || !sameNode(c, stat)) {
      return false;
    }
    c.guarded.set(zxid);
    return true;
  }

  @Override
  public void process(WatchedEvent event) {
    String path = event.getPath();
    if (path == null || session.isClosed() || event.getType() == Event.EventType.None) {
      return;
    }
    Contender named = namedIn(path);
    if (named != null) {
      fired(named, event);
      return;
    }
    // A grant handed off to another owner, or a contender gone from the map: look at them all.
    for (Contender c : contenders.values()) {
      if (path.equals(c.node) && c.granted) {
        fired(c, event);
      }
    }
  }

  /**
   * The granted contender whose node is {@code path}, found by the owner in the node's name without
   * looking at every contender (each of this client's own releases fires a watch), or null.
   */
  private @Nullable Contender namedIn(String path) {
    String child = Nodes.child(path);
    Contender c = holding(path, Nodes.ownerOf(child));
    return c != null ? c : holding(path, Nodes.rwOwnerOf(child));
  }

  private @Nullable Contender holding(String path, @Nullable String owner) {
    Contender c = owner == null ? null : contenders.get(owner);
    return c != null && path.equals(c.node) && c.granted ? c : null;
  }

  private void fired(Contender c, WatchedEvent event) {
    c.guarded.set(0); // a watch fires once: it is gone from the server
    if (event.getType() == Event.EventType.NodeDeleted) {
      lose(c, "was deleted while held, though its session lives: by an administrator or a client"
          + " with the same credentials");
    } else {
      watch(c); // a semaphore holder's touch fired the watch: set it again
    }
  }

  private void lose(Contender c, String what) {
    if (c.leaving || contenders.get(c.owner) != c || !c.claimLoss()) {
      return;
    }
    Grant g = c.grant();
    String reason = String.format("its node %s on %s %s", c.node, session.url.redacted(), what);
    BackendContext ctx = Objects.requireNonNull(context, "context, set at start");
    session.report(() -> ctx.lost(g, reason));
  }

  /**
   * The renewal: the grants whose node is gone, or is not the one granted, or belongs to a session
   * that ended. One round trip for the whole batch, bounded like every call: a sync, with an exists
   * of each node whose watch is not known to be in place; a second one only for the nodes whose
   * watch fired on a data change while the first was under way.
   */
  Set<Grant> renew(Collection<Grant> grants) {
    session.checkOpen();
    if (!session.connected()) {
      throw new BackendUnavailableException(String.format(
          "%s: the connection is suspended, so the session may expire; %d lease(s) are uncertain",
          session.url.redacted(), grants.size()));
    }
    long sid = session.sessionId();
    Set<Grant> gone = new HashSet<>();
    List<Grant> checked = new ArrayList<>(grants.size());
    List<Contender> held = new ArrayList<>(grants.size());
    for (Grant g : grants) {
      Contender c = contenders.get(g.owner());
      if (c == null || !c.holds(g) || c.sessionId != sid) {
        gone.add(g);
      } else {
        checked.add(g);
        held.add(c);
      }
    }
    if (held.isEmpty()) {
      return gone;
    }
    boolean[] alive = session.call(() -> "renew " + held.size() + " lease(s)", zk -> {
      boolean[] ok = new boolean[held.size()];
      if (zk.sessionId() != sid) {
        return ok; // a new session: the nodes went with the old one
      }
      CompletableFuture<Void> synced = zk.syncLater();
      Checks checks = new Checks();
      for (int i = 0; i < ok.length; i++) {
        Contender c = held.get(i);
        if (c.guarded.get() != c.zxid) {
          checks.add(zk, i, c);
        }
      }
      zk.await(synced);
      // Every event sent before the sync's answer has been handled: a watched node deleted before
      // the sync is marked lost, and one whose watch fired on a data change is no longer watched.
      Checks late = new Checks();
      for (int i = 0; i < ok.length; i++) {
        Contender c = held.get(i);
        if (!checks.has(i) && !c.lost) {
          if (c.guarded.get() == c.zxid) {
            ok[i] = true;
          } else {
            late.add(zk, i, c); // its watch fired meanwhile: sent after the sync, so answered as of after it
          }
        }
      }
      checks.settle(zk, ok);
      late.settle(zk, ok);
      return ok;
    });
    for (int i = 0; i < alive.length; i++) {
      if (!alive[i]) {
        held.get(i).claimLoss();
        gone.add(checked.get(i));
      }
    }
    return gone;
  }

  /** The exists requests of one round, sent together and awaited together. */
  private final class Checks {
    private final List<Integer> indexes = new ArrayList<>();
    private final List<Contender> held = new ArrayList<>();
    private final List<CompletableFuture<Stat>> stats = new ArrayList<>();
    private final Set<Integer> sent = new HashSet<>();

    /** Sends an exists of the node, which sets its watch again, marked in place on the answer. */
    void add(Requests zk, int index, Contender c) {
      long zxid = c.zxid;
      indexes.add(index);
      held.add(c);
      sent.add(index);
      stats.add(zk.existsLater(c.createdNode(), HeldNodes.this, stat -> watched(c, zxid, stat)));
    }

    boolean has(int index) {
      return sent.contains(index);
    }

    /** Awaits the answers, setting {@code ok} for each node found as created. */
    void settle(Requests zk, boolean[] ok) throws KeeperException {
      for (int j = 0; j < stats.size(); j++) {
        ok[indexes.get(j)] = sameNode(held.get(j), zk.await(stats.get(j)));
      }
    }
  }

  /** True if {@code stat} is the contender's node as created: same creation and session. */
  private static boolean sameNode(Contender c, @Nullable Stat stat) {
    return stat != null && stat.getCzxid() == c.zxid && stat.getEphemeralOwner() == c.sessionId;
  }
}
