package dev.dlock.redis;

import dev.dlock.BackendUnavailableException;
import dev.dlock.internal.Abandonable;
import dev.dlock.redis.ScriptCalls.AcquireMode;
import dev.dlock.redis.ScriptCalls.AcquireReply;
import dev.dlock.redis.ScriptCalls.ReleaseMode;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockInfo;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.SpareTokens;
import dev.dlock.spi.Ticker;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The S8/S9 lease lock on one Redis, improved. Why it looks like this: every operation is one
 * EVALSHA of an owner-checked script, so an uncontended lock and unlock send two commands, which
 * run six on the server: a GET of the token counter, SET NX PX and the token draw (TIME, SET), then
 * a GET and DEL of the lock. Each script judges the shapes of the keys it reads from that read
 * ({@link ForeignValue}), and of the queue's keys only when it touches them; renewing a client's leases is one EVALSHA per 1,000 of them ({@link Renewals}). A
 * token is the larger of the counter + 1 and the server's clock in microseconds (prelude.lua), so
 * a counter that a restart or a failover lost or set back never hands out a token at or below one
 * handed out before. A refused waiter joins the lock's FIFO in the same script that refused it, so
 * no release can slip between the two. A release that finds owners queued grants the lock to the oldest one
 * whose client still listens, with the next token, and publishes that token to that client's
 * channel only, so one client wakes per release and its waiter holds the lock with no further
 * request. The pushed grant lasts only the waiter timeout, or the waiter's own lease if that is
 * shorter (the waiter records it when it queues), so a frozen or dead waiter cannot hold the lock
 * longer than either, nor longer than its client counts it valid; the engine renews it to a whole
 * lease. A waiter's place lapses when it has not
 * asked for {@code waiterTimeout}, and it asks at least three times per timeout while it waits, so a
 * lost notification costs at most a third of it. A release to another thread of this client costs
 * no request: every exclusive token leaves {@value #SPARE_TOKENS} spare after it (prelude.lua's
 * drawToken), and the engine gives them to the threads it hands the grant to ({@link SpareTokens}).
 * The server keeps the grant as it was made, so inspect shows its first owner and token while later
 * turns hold it, as ZooKeeper's does; the replica policy has nothing to wait for, since a local
 * hand-off writes nothing. The other kinds live in {@link KindLocks}; their releases push grants
 * the same way, into the same {@link QueuedOwners}.
 */
final class RedisBackend implements LockBackend, SpareTokens, Abandonable {
  private static final Logger log = LoggerFactory.getLogger(RedisBackend.class);
  /**
   * How long a waiter keeps its place without asking again, and how long a grant pushed to it lasts
   * at most (its own lease, if shorter).
   */
  static final Duration WAITER_TIMEOUT = Duration.ofSeconds(3);
  /** The tokens left spare after each exclusive grant: prelude.lua's SPARE. */
  static final int SPARE_TOKENS = 15;

  private final RedisUrl url;
  private final Keys keys;
  private final Duration waiterTimeout;
  private final Duration retryWhileQueued;
  private final Replicas replicas;
  private final Connections connections;
  private final Scripts scripts;
  private final Calls calls;
  private final ScriptCalls script;
  private final KindLocks kindLocks;
  private final Renewals renewals;
  private final QueuedOwners queued = new QueuedOwners();
  private volatile @Nullable BackendContext context;
  private volatile boolean closed;

  private RedisBackend(RedisUrl url, Duration waiterTimeout, Connections connections) {
    this.url = url;
    this.keys = new Keys(url.prefix(), connections.sharded());
    this.waiterTimeout = waiterTimeout;
    this.retryWhileQueued = waiterTimeout.dividedBy(3);
    this.connections = connections;
    this.scripts = new Scripts(connections.commands(), url.uri().getTimeout(), this::clock);
    this.calls = new Calls(connections, scripts, url.description());
    this.script = new ScriptCalls(keys, waiterTimeout.toMillis());
    this.replicas = new Replicas(url.replication(), calls);
    this.kindLocks = new KindLocks(calls, script, queued, waiterTimeout, !replicas.on(), this::clock);
    this.renewals = new Renewals(calls, script, keys, replicas, connections.isCluster());
  }

  /** Connects both connections and loads the scripts, or throws BackendUnavailableException. */
  static RedisBackend open(RedisUrl url, Duration waiterTimeout) {
    Connections connections = Connections.open(url);
    try {
      RedisBackend backend = new RedisBackend(url, waiterTimeout, connections);
      backend.scripts.load();
      return backend;
    } catch (RuntimeException e) {
      connections.close();
      throw new BackendUnavailableException(
          String.format("cannot connect to redis %s: %s", url.description(), Calls.reason(e)), e);
    }
  }

  @Override
  public void start(BackendContext context) {
    this.context = context;
    connections.reportReconnects(context::reconnected);
    connections.addListener(new Inbox(context.clientId(), this::pushed,
        (name, owner) -> context.released(name)), keys::lock);
    if (!keys.sharded()) {
      calls.command("subscribe to its release channel",
          c -> c.subscribe(keys.channel(context.clientId())));
    }
  }

  /**
   * With sharded pub/sub, subscribes to this client's channel in {@code name}'s slot before a
   * wait there may queue an owner, since a release skips queued owners nobody listens for.
   */
  private void listen(String name) {
    if (keys.sharded()) {
      calls.command("subscribe to its release channel for lock '" + name + "'",
          c -> c.listen(keys.lock(name), keys.channel(name, context().clientId())));
    }
  }

  @Override
  public Set<LockKind> kinds() {
    return EnumSet.allOf(LockKind.class);
  }

  @Override
  public Attempt tryAcquire(LockRequest request) {
    checkOpen();
    if (request.kind() == LockKind.EXCLUSIVE) {
      return exclusive(request.name(), request.owner(), request.leaseTime(), request.willWait());
    }
    if (request.willWait()) {
      listen(request.name());
    }
    Attempt a = kindLocks.tryAcquire(request);
    if (a.isGranted()) {
      replicas.confirmGrant(request.name(), keys.lock(request.name()), () -> kindLocks.release(
          new Grant(request.name(), request.owner(), a.token(), request.kind())));
    }
    return a;
  }

  private Attempt exclusive(String name, String owner, Duration leaseTime, boolean willWait) {
    if (willWait && !replicas.on()) {
      Attempt pushed = queued.take(owner, name, leaseTime, waiterTimeout, context().ticker().read());
      if (pushed != null) {
        return pushed;
      }
    }
    if (willWait) {
      listen(name);
    }
    AcquireMode mode = !willWait ? AcquireMode.ONCE
        : queued.waits(owner, name, LockKind.EXCLUSIVE, context().ticker().read())
            ? AcquireMode.QUEUED : AcquireMode.WAIT;
    AcquireReply r;
    try {
      r = calls.run(() -> "acquire lock '" + name + "'", script.acquire(name, owner, millis(leaseTime), mode));
    } catch (RuntimeException e) {
      queued.unanswered(owner);
      throw e;
    }
    Attempt a = answer(r, owner, willWait);
    if (!a.isGranted() && willWait) {
      queued.refused(owner, r.counter());
    }
    if (a.isGranted()) {
      replicas.confirmGrant(name, keys.lock(name), () -> runRelease(name, owner, ReleaseMode.RELEASE));
    }
    return a;
  }

  /** Reads the acquire script's reply. */
  private Attempt answer(AcquireReply r, String owner, boolean willWait) {
    if (r.granted()) {
      queued.remove(owner);
      return Attempt.granted(r.token());
    }
    Duration left = Duration.ofMillis(Math.max(0, r.leftMillis()));
    if (willWait && left.compareTo(retryWhileQueued) > 0) {
      left = retryWhileQueued;
    }
    return Attempt.held(left, r.holder());
  }

  /** Renews in script calls of up to 1,000 grants each, sent pipelined ({@link Renewals}). */
  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    checkOpen();
    return renewals.renew(grants, leaseTime);
  }

  @Override
  public boolean release(Grant grant) {
    checkOpen();
    if (grant.kind() != LockKind.EXCLUSIVE) {
      return kindLocks.release(grant);
    }
    return runRelease(grant.name(), grant.owner(), ReleaseMode.RELEASE);
  }

  @Override
  public int spareTokens() {
    return SPARE_TOKENS;
  }

  @Override
  public void cancel(String name, String owner) {
    LockKind kind = queued.remove(owner);
    if (closed) {
      return; // A closed client's places are skipped: nobody listens on its channel any more.
    }
    if (kind == null || kind == LockKind.EXCLUSIVE) {
      runRelease(name, owner, ReleaseMode.CANCEL);
    } else {
      calls.run(() -> String.format("cancel the wait for %s lock '%s'", kind, name),
          script.kindRelease(kind, name, owner, ReleaseMode.CANCEL));
    }
  }

  private boolean runRelease(String name, String owner, ReleaseMode mode) {
    return calls.run(() -> mode.verb + " lock '" + name + "'", script.release(name, owner, mode));
  }

  /**
   * A release granted {@code name} ({@code kind}) to {@code owner}, a waiter of this client, with
   * {@code token}: the waiting thread takes it without asking ({@link QueuedOwners#take}). If nobody
   * here waits as that owner any more (it gave up and its cancel was lost, or its own retry took the
   * grant first), a grant still marked pushed is passed on, off the I/O thread; a taken one is left
   * alone.
   */
  private void pushed(LockKind kind, String name, String owner, long token) {
    if (queued.push(owner, name, token)) {
      context().released(name);
    } else if (!closed && !queued.tookLately(owner)) {
      ScriptCall<Boolean> pass = kind == LockKind.EXCLUSIVE ? script.release(name, owner, ReleaseMode.PASS)
          : script.kindPass(kind, name, owner, token);
      CompletableFuture.runAsync(() -> {
        try {
          calls.run(() -> "pass on lock '" + name + "'", pass);
        } catch (RuntimeException e) {
          log.debug("dlock: could not pass on the grant of lock '{}' for {}", name, owner, e);
        }
      });
    }
  }

  @Override
  public Optional<LockInfo> inspect(String name) {
    checkOpen();
    return calls.run(() -> "inspect lock '" + name + "'", script.inspect(name)).map(r -> new LockInfo(
        name, r.owner(), r.token(), Duration.ofMillis(Math.max(0, r.ttlMillis()))));
  }

  @Override
  public List<LockInfo> inspectAll() {
    checkOpen();
    TreeSet<String> names = new TreeSet<>();
    keys.scanNames((from, args) -> calls.command("list the held locks", c -> from == null
        ? c.commands().scan(args) : c.commands().scan(from, args)), names);
    List<LockInfo> all = new ArrayList<>();
    for (String name : names) {
      inspect(name).ifPresent(all::add);
    }
    all.sort(Comparator.comparing(LockInfo::name));
    return all;
  }

  @Override
  public String describe() {
    return url.description();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    leaveQueues();
    connections.close();
  }

  /** Drops the connections as a crash would: queue places stay until a release skips them. */
  @Override
  public void abandon() {
    if (closed) {
      return;
    }
    closed = true;
    queued.clear();
    connections.close();
  }

  /**
   * Gives up this client's places in the queues, and any grant pushed to them, so the next
   * waiter need not wait for them to lapse. Best effort, and never longer than a second: a release
   * skips a closed client's places anyway, as nobody listens on its channel any more.
   */
  private void leaveQueues() {
    List<RedisFuture<Object>> sent = new ArrayList<>();
    try {
      if (connections.isOpen()) {
        queued.forEach((owner, name, kind) -> sent.add(calls.send(kind == LockKind.EXCLUSIVE
            ? script.release(name, owner, ReleaseMode.CANCEL)
            : script.kindRelease(kind, name, owner, ReleaseMode.CANCEL))));
      }
      LettuceFutures.awaitAll(Duration.ofSeconds(1), sent.toArray(RedisFuture[]::new));
    } catch (RuntimeException e) {
      log.debug("dlock: could not leave the waiter queues of {}", describe(), e);
    }
    queued.clear();
  }

  /** The engine's context: {@link #start} gives it before any lock call or pushed grant. */
  private BackendContext context() {
    BackendContext c = context;
    if (c == null) {
      throw new IllegalStateException("backend " + describe() + " is not started");
    }
    return c;
  }

  /** The engine's clock once started; the system's before, while opening. */
  private long clock() {
    BackendContext c = context;
    return c == null ? Ticker.system().read() : c.ticker().read();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("backend " + describe() + " is closed");
    }
  }

  static long millis(Duration d) {
    return Math.max(1, d.toMillis());
  }
}
