package dev.dlock.zookeeper;

import dev.dlock.internal.Abandonable;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.HandsOff;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockInfo;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The S12 exclusive lock, and the entry point of every other kind. Each contender creates an
 * ephemeral sequential node under the lock's container directory; the smallest node holds the
 * lock; a waiter watches only its predecessor, so a release (one delete) wakes exactly one client.
 * An uncontended acquire is one round trip, a transaction that creates the node and tells whether
 * it is alone (see {@link QueueNodes#enter}); a contended one adds a getChildren and a watch, and a waiter
 * that watched the head takes over when the head is deleted, without listing again. A fair lock is
 * the same recipe in a directory of its own (it is first come, first served already); the
 * read-write lock and the semaphore decide grants and watches in {@link ReadWriteQueue} and
 * {@link SemaphoreQueue}; every kind's nodes are made and deleted by {@link QueueNodes}, and renew
 * and release are shared here. Why the session is the lease ({@link #sessionLease}): the server
 * drops the node when the session ends, a session timeout after the leader last heard of the
 * client (late, through a follower: {@link ZkSession#lease()}), whatever lease was asked for. So
 * a renewal extends nothing: it proves that each node is still there and its session alive, and
 * between renewals a watch on each held node reports its deletion ({@link HeldNodes});
 * {@link SessionStates} reports grants lost when the session is, or may be, gone. A fixed lease ({@code lock(name, leaseTime)}) ends at its deadline by the engine's
 * release, the only way to end it early at the server; if that release cannot reach the server,
 * the node goes with the session, and the holder has been told before.
 */
final class ZooKeeperBackend implements LockBackend, HandsOff, Abandonable {
  private static final int HAND_OFF_BITS = 4;
  private static final int MAX_HAND_OFFS = (1 << HAND_OFF_BITS) - 1;

  private final ZkSession session;
  private final Nodes nodes;
  private final Map<String, Contender> contenders = new ConcurrentHashMap<>();
  private final AtomicInteger wakeUps = new AtomicInteger();
  private final SessionStates states;
  private final QueueNodes queueNodes;
  private final HeldNodes held;
  private final ReadWriteQueue readWrite;
  private final SemaphoreQueue semaphore;
  private volatile @Nullable BackendContext context;

  ZooKeeperBackend(ZkSession session) {
    this.session = session;
    this.nodes = new Nodes(session.url.chroot());
    this.states = new SessionStates(session, contenders);
    this.queueNodes = new QueueNodes(session, contenders);
    this.readWrite = new ReadWriteQueue(session, queueNodes);
    this.semaphore = new SemaphoreQueue(session, queueNodes);
    this.held = new HeldNodes(session, contenders);
  }

  @Override
  public void start(BackendContext context) {
    this.context = context;
    session.useTicker(context.ticker());
    held.start(context);
    states.start(context);
  }

  /**
   * Two fifths of the session timeout the server negotiated ({@link ZkSession#lease()}): the
   * leader may expire the session that long after a renewal was sent through a follower, which
   * tells it of the session's requests late. The engine counts each hold valid for this long from
   * the send time of its last successful {@link #renew}, and renews every third of it.
   */
  @Override
  public Optional<Duration> sessionLease() {
    return Optional.of(session.lease());
  }

  // ---- acquire

  private Attempt exclusive(String name, String owner, boolean willWait) {
    Contender c = contenders.computeIfAbsent(owner, o -> newContender(name, o));
    return attempt(c, name, LockKind.EXCLUSIVE, willWait, () -> queue(c, willWait));
  }

  @Override
  public Set<LockKind> kinds() {
    return EnumSet.allOf(LockKind.class);
  }

  @Override
  public Attempt tryAcquire(LockRequest r) {
    session.checkOpen();
    if (r.kind() == LockKind.EXCLUSIVE) {
      return exclusive(r.name(), r.owner(), r.willWait());
    }
    Contender c = contenders.computeIfAbsent(r.owner(), o -> newContender(r));
    return attempt(c, r.name(), r.kind(), r.willWait(), () -> switch (r.kind()) {
      case READ, WRITE -> readWrite.queue(c, r.willWait());
      case PERMIT -> semaphore.queue(c, r.willWait());
      default -> queue(c, r.willWait()); // FAIR: the exclusive recipe is first come, first served
    });
  }

  private Attempt attempt(Contender c, String name, LockKind kind, boolean willWait, Supplier<Attempt> queue) {
    if (!c.name.equals(name) || c.kind != kind) {
      throw new IllegalStateException(String.format(
          "owner '%s' already competes for %s lock '%s', not %s lock '%s'", c.owner, c.kind, c.name, kind, name));
    }
    boolean answered = false;
    try {
      Attempt a = queue.get();
      if (a.isGranted()) {
        held.watch(c);
      } else if (!willWait) {
        queueNodes.leave(c);
      }
      answered = true;
      return a;
    } finally {
      if (!answered && !willWait) {
        queueNodes.leaveLater(c); // the caller's failure is the one to report, without a second wait
      }
    }
  }

  private Contender newContender(String name, String owner) {
    return watched(new Contender(name, owner, nodes.dir(name)));
  }

  private Contender newContender(LockRequest r) {
    String dir = nodes.dir(r.kind(), r.name());
    byte[] dirData = Contender.NO_DATA;
    String prefix = Nodes.prefix(r.owner());
    Contender writer = readWrite.writerOf(r);
    if (r.kind() == LockKind.READ || r.kind() == LockKind.WRITE) {
      prefix = Nodes.prefix(ReadWriteQueue.side(r, writer), r.owner());
    } else if (r.kind() == LockKind.PERMIT) {
      dirData = Integer.toString(r.permits()).getBytes(StandardCharsets.UTF_8);
    }
    Contender c = new Contender(r.name(), r.owner(), r.kind(), dir, prefix, dirData, r.permits());
    c.downgradeOf = writer == null ? 0 : writer.token;
    return watched(c);
  }

  /** Gives the contender its one watcher: a fired watch wakes this client's waiters of the name. */
  private Contender watched(Contender c) {
    String name = c.name;
    String owner = c.owner;
    c.watcher = event -> {
      if (event.getType() == Watcher.Event.EventType.NodeDeleted && c.watchedIsHead
          && event.getPath().equals(c.watched)) {
        c.headGone = true;
      }
      if (event.getType() != Watcher.Event.EventType.None && contenders.get(owner) == c && !c.granted) {
        wakeUps.incrementAndGet();
        BackendContext ctx = context;
        if (ctx != null) { // set at start, before any request, so before any watch
          ctx.released(name);
        }
      }
    };
    return c;
  }

  /** Creates the node if needed, then grants, or watches the predecessor of a waiter. */
  private Attempt queue(Contender c, boolean willWait) {
    long tried = session.now();
    while (true) {
      if (c.node == null || c.sessionId != session.sessionId()) {
        c.node = null; // a node of an ended session is gone with it
        if (queueNodes.enter(c)) {
          return queueNodes.granted(c, token(c));
        }
      } else if (c.headGone) {
        Attempt a = queueNodes.grantFound(c, token(c), tried);
        if (a != null) {
          return a;
        }
        c.node = null; // its session ended while it waited: queue again
        continue;
      }
      List<String> queue = Nodes.queue(queueNodes.children(c.dir, () -> "list the queue of lock '" + c.name + "'"));
      int i = queue.indexOf(Nodes.child(c.createdNode()));
      if (i < 0) {
        c.node = null; // deleted from outside, or its session ended meanwhile: queue again
        continue;
      }
      if (i == 0) {
        Attempt a = queueNodes.grantFound(c, token(c), tried);
        if (a != null) {
          return a;
        }
        c.node = null;
        continue;
      }
      if (!willWait) {
        return Attempt.held(Duration.ZERO, Nodes.ownerOf(queue.get(0)));
      }
      if (queueNodes.watch(c, queue.get(i - 1), i == 1)) {
        return Attempt.held(session.sessionTimeout(), Nodes.ownerOf(queue.get(0)));
      }
      // The predecessor left between the listing and the watch: look again.
    }
  }

  /**
   * The token of an exclusive or fair grant: the czxid shifted left by {@value #HAND_OFF_BITS}, so
   * that up to {@value #MAX_HAND_OFFS} hand-offs within this client ({@link #handOff}) can add one
   * each and stay below the token of any node made later. (The shift leaves room for 2^27 leader
   * epochs, each worth 2^32 transactions.)
   */
  private static long token(Contender c) {
    return c.zxid << HAND_OFF_BITS;
  }

  // ---- leases

  /**
   * One round trip for the whole batch: a sync, and an exists only of the nodes whose watch is not
   * known to be in place, pipelined ({@link HeldNodes#renew}). {@code leaseTime} is not used: the
   * session is the lease.
   */
  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    return held.renew(grants);
  }

  /**
   * Deletes the grant's node if it is still this owner's, on this session. It does so even when
   * the grant was reported lost meanwhile: the engine releases a fixed lease at its deadline and
   * a lease it has given up on, whose node may still stand (a suspension that the session
   * outlived), and which nobody else would ever delete while this client lives.
   */
  @Override
  public boolean release(Grant grant) {
    session.checkOpen();
    Contender c = contenders.get(grant.owner());
    if (c == null || !c.matches(grant)) {
      return false;
    }
    return queueNodes.leave(c);
  }

  /**
   * Passes a held exclusive grant to another owner of this client without a request: the node
   * stays, so the lock is never free and the queue behind it keeps its order, and nobody is woken.
   * The new token is the old one plus one, below the token of any node made later (see
   * {@link #token}); after {@value #MAX_HAND_OFFS} in a row on one node it declines, and the engine
   * releases. The server still shows the node's first owner and token, which is what
   * {@link #inspect} reports meanwhile.
   */
  @Override
  public @Nullable Attempt handOff(Grant grant, String owner, Duration leaseTime) {
    session.checkOpen();
    Contender c = contenders.get(grant.owner());
    if (c == null || !c.holds(grant) || c.sessionId != session.sessionId()) {
      return Attempt.held(Duration.ZERO, null);
    }
    if (c.token - token(c) >= MAX_HAND_OFFS || !session.connected()) {
      return null;
    }
    Contender next = watched(new Contender(c.name, owner, c.kind, c.dir, c.prefix, c.dirData, c.permits));
    next.node = c.node;
    next.sessionId = c.sessionId;
    next.zxid = c.zxid;
    next.token = c.token + 1;
    next.guarded = c.guarded; // the same node, under the one watch
    next.granted = true;
    contenders.put(owner, next);
    contenders.remove(c.owner, c);
    if (c.guarded.get() != c.zxid) {
      held.watch(next); // c's watch, not sent yet, will find c gone
    }
    return Attempt.granted(next.token);
  }

  @Override
  public void cancel(String name, String owner) {
    Contender c = contenders.get(owner);
    if (c == null || !c.name.equals(name) || session.isClosed()) {
      return;
    }
    if (session.connected()) {
      queueNodes.leave(c);
    } else {
      queueNodes.leaveLater(c); // nothing to wait for: the node goes later, or with its session
    }
  }

  // ---- inspection

  @Override
  public Optional<LockInfo> inspect(String name) {
    session.checkOpen();
    return session.call(() -> "inspect lock '" + name + "'", zk -> head(zk, name, nodes.dir(name)));
  }

  @Override
  public List<LockInfo> inspectAll() {
    session.checkOpen();
    return session.call(() -> "list locks", zk -> {
      TreeMap<String, String> dirs = new TreeMap<>();
      try {
        for (String child : zk.getChildren(nodes.base())) {
          dirs.put(Nodes.nameOf(child), nodes.base() + "/" + child);
        }
      } catch (KeeperException.NoNodeException e) {
        return List.of();
      }
      List<LockInfo> all = new ArrayList<>();
      for (Map.Entry<String, String> d : dirs.entrySet()) {
        head(zk, d.getKey(), d.getValue()).ifPresent(all::add);
      }
      return all;
    });
  }

  /** The holder of one lock: the smallest node, its owner from its data, its first token. */
  private Optional<LockInfo> head(Requests zk, String name, String dir) throws KeeperException {
    while (true) {
      List<String> queue;
      try {
        queue = Nodes.queue(zk.getChildren(dir));
      } catch (KeeperException.NoNodeException e) {
        return Optional.empty();
      }
      if (queue.isEmpty()) {
        return Optional.empty();
      }
      try {
        Requests.Data node = zk.getData(dir + "/" + queue.get(0));
        byte[] data = node.data();
        Stat stat = node.stat();
        String head = queue.get(0); // a contender's node (Nodes.queue keeps no other), so it names its owner
        String owner = data != null && data.length > 0 ? new String(data, StandardCharsets.UTF_8)
            : Objects.requireNonNull(Nodes.ownerOf(head), () -> "not a contender's node: " + head);
        // The holder keeps the lock while its session lives: at most a session timeout past its
        // last contact. This client's negotiated timeout stands in for the holder's. The token is
        // that of the node's first grant; hand-offs within its client since are not on the server.
        return Optional.of(new LockInfo(name, owner, stat.getCzxid() << HAND_OFF_BITS, session.sessionTimeout()));
      } catch (KeeperException.NoNodeException e) {
        // The holder just left: look again.
      }
    }
  }

  // ---- for tests

  ZkSession session() {
    return session;
  }

  Nodes nodes() {
    return nodes;
  }

  HeldNodes held() {
    return held;
  }

  QueueNodes queueNodes() {
    return queueNodes;
  }

  SessionStates states() {
    return states;
  }

  /** How many predecessor watches fired a wake-up. */
  int wakeUps() {
    return wakeUps.get();
  }

  // ---- lifecycle

  @Override
  public String describe() {
    return session.url.redacted();
  }

  @Override
  public void abandon() {
    session.abandon();
  }

  @Override
  public void close() {
    session.close();
  }
}
