package dev.dlock.redis;

import static dev.dlock.redis.ScriptCalls.ascii;

import dev.dlock.BackendUnavailableException;
import dev.dlock.LockException;
import dev.dlock.redis.ScriptCalls.AcquireReply;
import dev.dlock.redis.ScriptCalls.RedlockRelease;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockInfo;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.Ticker;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redlock (S10): N independent Redis masters, each running the single-Redis scripts. Why this
 * shape: every operation is one round of one script per node, sent to all nodes at once, so a lock
 * costs the slowest node's round trip, bounded by the node timeout, and a minority of dead or slow
 * nodes changes nothing. A grant needs a majority of nodes and must come back with time left;
 * otherwise it is released on every node, those that refused or did not answer included.
 *
 * <p>Time: the server TTL is {@code leaseTime + drift} (drift = leaseTime x factor + 2 ms) at
 * acquire and at every renewal. The engine counts a grant's validity, and a renewal's lease, from
 * the moment it sent the request, before any node set its key, so it believes in {@code leaseTime}
 * = TTL - drift from then: the time spent is already inside that count, and the grant is refused
 * if none of it is left when the answers are in (TTL - elapsed - drift &lt;= 0).
 *
 * <p>Fencing tokens, in two phases. Each node's acquire draws from that node's counter (the larger
 * of counter + 1 and the node's clock in microseconds), and nodes diverge, so the maximum over one
 * majority is not enough. Phase 1 grants and takes T = the highest draw among the granting nodes;
 * phase 2 ({@code redlock-raise.lua}) sets the counter to max(counter, T) on the granting nodes,
 * only while this owner still holds the lock there, and must succeed on a majority in time (it is
 * skipped when a majority already stands at T, which the clock makes rare). Any later grant needs
 * a majority too, which meets the raised majority in a node. If that node kept its counter, it is
 * at least T, and the later draw there is above it. If it lost its counter (a restart without
 * persistence), it lost it after the raise, so its clock has moved on by at least the restart since
 * T was drawn, and draws above T as long as the nodes' clocks agree better than a restart takes.
 * Redlock still has no single linearizable counter, and a grant a paused client still believes in
 * may already be void, so the token is the best Redlock can give, not a safe fence on its own.
 *
 * <p>Waits: a refused owner that will wait takes a place in the lock's queue on every node, and a
 * node that frees the lock tells the client of its oldest waiter ({@link RedlockWakes}, which
 * wakes the waiter once a majority told it, and {@link RedlockListeners}). The wake is a hint: the
 * woken waiter retries the whole majority acquire, and one whose wakes are lost retries by its
 * hint, the holder's time left but at most a third of the waiter timeout, which also renews its
 * place.
 */
final class RedlockBackend implements LockBackend {
  private static final Logger log = LoggerFactory.getLogger(RedlockBackend.class);
  private static final byte[] RAISE = Scripts.resource("redlock-raise.lua");
  private static final String RAISE_SHA = Scripts.sha1(RAISE);
  /** How long a waiter keeps its place on a node without asking again. */
  static final Duration WAITER_TIMEOUT = Duration.ofSeconds(3);

  private final RedlockUrl url;
  private final Keys keys;
  private final ScriptCalls script;
  private final int majority;
  private final RedlockConnections connections;
  private final List<RedlockNode> nodes;
  private final RedlockWakes wakes;
  private final RedlockListeners listeners;
  private final long retryWhileWaitingMs;
  private volatile @Nullable BackendContext context;
  private volatile boolean closed;

  private RedlockBackend(RedlockUrl url, Duration waiterTimeout) {
    this.url = url;
    this.keys = new Keys(url.prefix());
    this.script = new ScriptCalls(keys, waiterTimeout.toMillis());
    this.majority = url.majority();
    this.retryWhileWaitingMs = waiterTimeout.dividedBy(3).toMillis();
    this.connections = RedlockConnections.open(url, this::clock, this::reconnected);
    this.nodes = connections.nodes();
    this.wakes = new RedlockWakes(majority, nodes, script);
    this.listeners = new RedlockListeners(nodes, connections::connectPubSub, wakes);
  }

  /**
   * Connects to every node at once; throws BackendUnavailableException if under a majority can.
   * {@code waiterTimeout}: how long a waiter keeps its place on a node without asking again.
   */
  static RedlockBackend open(RedlockUrl url, Duration waiterTimeout) {
    return new RedlockBackend(url, waiterTimeout);
  }

  @Override
  public void start(BackendContext context) {
    this.context = context;
    wakes.start(context::released);
    listeners.start(context.clientId(), keys.channel(context.clientId()),
        RedlockConnections.timeout(url));
    // What the nodes timed at open is on the system ticker: start their reconnect pauses again, and
    // read their starts again, on the engine's.
    nodes.forEach(RedlockNode::clockChanged);
    if (!url.restartDelay().isZero()) {
      RedlockRound.send(nodes, clock(), RedlockNode::reverify).await(RedlockConnections.timeout(url));
    }
  }

  @Override
  public Attempt tryAcquire(LockRequest request) {
    checkOpen();
    String name = request.name();
    String owner = request.owner();
    Duration leaseTime = request.leaseTime();
    Duration restartDelay = url.restartDelay();
    if (!restartDelay.isZero() && leaseTime.compareTo(restartDelay) > 0) {
      throw new IllegalArgumentException(String.format(
          "leaseTime %s is longer than the redlock restartDelay %s", leaseTime, restartDelay));
    }
    long arrival = 0;
    if (request.willWait()) {
      listeners.ensure();
      arrival = wakes.trying(owner, name);
    }
    long start = clock();
    long leaseNanos = leaseTime.toNanos();
    ScriptCall<AcquireReply> acquire = script.redlockAcquire(name, owner, ttlMillis(leaseTime), arrival);
    byte[][] lockKeys = acquire.keys();
    RedlockRound<AcquireReply> r = RedlockRound.send(nodes, start, n -> n.run(acquire))
        .await(url.nodeTimeout());
    LockException foreign = foreign(r, lockKeys, "acquire lock '" + name + "'");
    if (foreign != null || r.answers() < majority) {
      releaseEverywhere(name, owner, RedlockRelease.UNDO);
      throw foreign != null ? foreign : unavailable("acquire lock '" + name + "'", r);
    }
    long token = 0;
    int granted = 0;
    long holderLeft = -1;
    String holder = null;
    int heldBy = 0;
    for (int i = 0; i < r.size(); i++) {
      if (!r.answered(i)) {
        continue;
      }
      AcquireReply reply = r.reply(i);
      if (reply.granted()) {
        if (r.counts(i)) {
          granted++;
          token = Math.max(token, reply.token());
        }
      } else if (r.counts(i) && reply.holder() != null) {
        String named = reply.holder();
        holder = holder == null ? named : holder;
        heldBy += named.equals(holder) ? 1 : 0;
        long left = reply.leftMillis();
        holderLeft = holderLeft < 0 ? left : Math.min(holderLeft, left);
      }
    }
    if (granted < majority || clock() - start >= leaseNanos) {
      releaseEverywhere(name, owner, RedlockRelease.UNDO);
      // Held by a majority, the holder's release will tell this waiter; else the lock is changing
      // hands, and the waiter asks again soon.
      return Attempt.held(request.willWait() && heldBy >= majority
          ? pastTry(start, Math.max(0, Math.min(holderLeft, retryWhileWaitingMs)))
          : pastTry(start, retryDelayMs(holderLeft)), holder);
    }
    if (!raise(r, lockKeys, Keys.utf8(owner), token, start, leaseNanos)) {
      releaseEverywhere(name, owner, RedlockRelease.UNDO);
      return Attempt.held(pastTry(start, retryDelayMs(-1)), null);
    }
    wakes.done(owner);
    // A grant a node gave while it may not vote is released there: it must not outlive its lease.
    for (int i = 0; i < r.size(); i++) {
      if (r.answered(i) && !r.counts(i) && r.reply(i).granted()) {
        cancelOn(r.node(i), script.redlockRelease(name, owner, RedlockRelease.UNDO, 0), name, owner);
      }
    }
    return Attempt.granted(token, leaseTime); // TTL - drift, counted by the engine from its send
  }

  /**
   * Phase 2: a majority of nodes must hold a counter of at least {@code token}, set while this
   * owner held the lock there; false if that cannot be had within the lease.
   */
  private boolean raise(RedlockRound<AcquireReply> phase1, byte[][] lockKeys, byte[] owner,
      long token, long start, long leaseNanos) {
    int atToken = 0;
    List<RedlockNode> below = new ArrayList<>();
    for (int i = 0; i < phase1.size(); i++) {
      boolean grantedHere = phase1.counts(i) && phase1.reply(i).granted();
      long counter = grantedHere ? phase1.reply(i).token() : -1;
      atToken += counter == token ? 1 : 0;
      below.add(grantedHere && counter < token ? phase1.node(i) : null);
    }
    if (atToken >= majority) {
      return true;
    }
    byte[] t = ascii(token);
    RedlockRound<Long> r = RedlockRound.<Long>send(below, clock(), n -> n.run(RAISE, RAISE_SHA,
        ScriptOutputType.INTEGER, lockKeys, owner, t)).await(url.nodeTimeout());
    int raised = atToken;
    for (int i = 0; i < r.size(); i++) {
      raised += below.get(i) != null && r.counts(i) && r.reply(i) == 1L ? 1 : 0;
    }
    return raised >= majority && clock() - start < leaseNanos;
  }

  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    checkOpen();
    List<Grant> list = new ArrayList<>(grants);
    Set<Grant> gone = new HashSet<>();
    if (list.isEmpty()) {
      return gone;
    }
    long start = clock();
    ScriptCall<List<Object>> renew = script.renew(list, ttlMillis(leaseTime));
    byte[][] locks = renew.keys();
    RedlockRound<List<Object>> r = RedlockRound.send(nodes, start, n -> n.run(renew))
        .await(url.nodeTimeout());
    if (r.answers() == 0) {
      throw unavailable("renew " + list.size() + " lease(s)", r);
    }
    int[] renewed = new int[list.size()];
    for (int i = 0; i < r.size(); i++) {
      if (r.counts(i)) {
        Set<Integer> lost = ForeignValue.lost(r.reply(i), locks, list, node(r.node(i)));
        for (int g = 0; g < list.size(); g++) {
          renewed[g] += lost.contains(g + 1) ? 0 : 1;
        }
      }
    }
    boolean inTime = clock() - start < leaseTime.toNanos();
    for (int g = 0; g < list.size(); g++) {
      if (renewed[g] < majority || !inTime) {
        gone.add(list.get(g));
        releaseEverywhere(list.get(g).name(), list.get(g).owner(), RedlockRelease.RELEASE);
      }
    }
    return gone;
  }

  @Override
  public boolean release(Grant grant) {
    checkOpen();
    ScriptCall<Boolean> release = script.redlockRelease(grant.name(), grant.owner(), RedlockRelease.RELEASE,
        RedlockWakes.newRelease());
    RedlockRound<Boolean> r = RedlockRound.send(nodes, clock(), n -> n.run(release))
        .await(url.nodeTimeout());
    LockException foreign = foreign(r, release.keys(), "release lock '" + grant.name() + "'");
    if (foreign != null) {
      throw foreign;
    }
    if (r.answers() == 0) {
      throw unavailable("release lock '" + grant.name() + "'", r);
    }
    int released = 0;
    for (int i = 0; i < r.size(); i++) {
      released += r.answered(i) && r.reply(i) ? 1 : 0;
    }
    return released >= majority;
  }

  @Override
  public void cancel(String name, String owner) {
    wakes.done(owner);
    if (!closed) {
      releaseEverywhere(name, owner, RedlockRelease.CANCEL);
    }
  }

  /** Frees the owner's grant on every node, without waiting: owner-checked, so always harmless. */
  private void releaseEverywhere(String name, String owner, RedlockRelease mode) {
    ScriptCall<Boolean> release = script.redlockRelease(name, owner, mode, RedlockWakes.newRelease());
    for (RedlockNode n : nodes) {
      cancelOn(n, release, name, owner);
    }
  }

  private void cancelOn(RedlockNode n, ScriptCall<Boolean> release, String name, String owner) {
    n.run(release).whenComplete((freed, e) -> {
          if (e != null) {
            log.debug("dlock: could not free lock '{}' of {} on redlock node {}", name, owner,
                n.address(), e);
          }
        });
  }

  @Override
  public Optional<LockInfo> inspect(String name) {
    checkOpen();
    return new RedlockInspector(this).inspect(name);
  }

  @Override
  public List<LockInfo> inspectAll() {
    checkOpen();
    return new RedlockInspector(this).inspectAll();
  }

  @Override
  public String describe() {
    return url.description();
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    listeners.close();
    connections.close();
  }

  // ---- shared with RedlockInspector

  List<RedlockNode> nodes() {
    return nodes;
  }

  Keys keys() {
    return keys;
  }

  ScriptCalls script() {
    return script;
  }

  int majority() {
    return majority;
  }

  Duration nodeTimeout() {
    return url.nodeTimeout();
  }

  /** A node came back after it dropped: the engine re-checks every lease at once. */
  private void reconnected(String why) {
    BackendContext c = context;
    if (c != null) {
      c.reconnected(why);
    }
  }

  /**
   * The engine's ticker once started. Before, while opening, the system's: the engine has passed
   * none yet, and what is timed then (the connect round, the reconnect pause, the nodes' starts)
   * is timed again on the engine's ticker at {@link #start}.
   */
  long clock() {
    BackendContext c = context;
    return c == null ? Ticker.system().read() : c.ticker().read();
  }

  /** Fewer than a majority answered: names how many did, and the first failure as the cause. */
  BackendUnavailableException unavailable(String what, RedlockRound<?> r) {
    Throwable cause = r.failure();
    return new BackendUnavailableException(String.format(
        "redlock: only %d of %d nodes answered, %d needed, to %s on %s%s", r.answers(), r.size(),
        majority, what, describe(), cause == null
            ? " (no answer within nodeTimeout " + url.nodeTimeout() + ")"
            : ": " + Calls.reason(cause)), cause);
  }

  /**
   * The LockException for the first node that found a key of the lock holding what dlock did not
   * write there; null if none did. Such a lock is neither free nor held on that node, and no
   * majority elsewhere makes it either.
   */
  @Nullable LockException foreign(RedlockRound<?> r, byte[][] lockKeys, String what) {
    for (int i = 0; i < r.size(); i++) {
      Throwable failure = r.failure(i);
      LockException e = failure == null ? null
          : ForeignValue.find(failure, lockKeys, what, node(r.node(i)));
      if (e != null) {
        return e;
      }
    }
    return null;
  }

  private String node(RedlockNode n) {
    return "redlock node " + n.address() + " of " + describe();
  }

  /** The server TTL: the lease plus the drift, so the client's lease ends before any server's. */
  long ttlMillis(Duration leaseTime) {
    long lease = RedisBackend.millis(leaseTime);
    long drift = (long) Math.ceil(lease * url.driftFactor()) + 2;
    return lease + drift;
  }

  /** A random pause of 10-50 ms, no longer than the holder's time left if known. */
  private static long retryDelayMs(long holderLeftMs) {
    long ms = ThreadLocalRandom.current().nextLong(10, 51);
    return holderLeftMs >= 0 ? Math.min(ms, holderLeftMs) : ms;
  }

  /**
   * A retry hint of {@code ms} after this try's answers, as the engine counts a hint from the
   * try's start. Why: a round that waits out a silent node (the node timeout) takes longer than the
   * random pause, which counted from the start had passed before the answers came; the waiters
   * then asked again at once, each right after its own undo, and kept the nodes they reached from
   * each other: three lab workers that each reached a different three nodes took none for seconds.
   */
  private Duration pastTry(long start, long ms) {
    return Duration.ofNanos(clock() - start).plusMillis(ms);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("backend " + describe() + " is closed");
    }
  }
}
