package dev.dlock;

import dev.dlock.spi.Abandonable;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockKind;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine behind every backend: reentrancy, the local wait queue, deadlines and interrupts, lease
 * validity, the loss signal and events live here once, and the backend answers only grant, renew,
 * release and cancel. One client is one engine: per-name state ({@link NameState}) lives in a map
 * while a waiter or holder references it; an acquire is an {@link Acquisition}; renewal runs on the
 * client's single scheduler thread ({@link Renewer}).
 */
final class Engine implements LockClient, Abandonable {
  private static final Logger log = LoggerFactory.getLogger(Engine.class);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Comparator<HeldLock> HELD_ORDER = Comparator.comparing(HeldLock::name)
      .thenComparing(HeldLock::kind).thenComparingLong(HeldLock::token);

  final LockBackend backend;
  final Ticker ticker;
  final Events events;
  private final String id;
  private final Duration leaseTime;
  final long maxPollNanos;
  private final int maxNameLength;
  // Keyed by Spec.key: the bare name for exclusive locks, a (kind, name) record for the others.
  private final ConcurrentHashMap<Object, NameState> names = new ConcurrentHashMap<>();
  private final AtomicLong ownerSeq = new AtomicLong();
  private final ScheduledThreadPoolExecutor scheduler;
  // Renewal rounds and background clean-up each on a thread of their own, so a hung server call
  // delays neither the deadlines on the timer thread nor each other.
  private final ThreadPoolExecutor rounds;
  private final Cleanup cleanup;
  private final Renewer renewer;
  private final AtomicBoolean shutdown = new AtomicBoolean();
  private final boolean handsOff;
  private volatile boolean closed;
  private volatile boolean abandoned;

  Engine(LockClientBuilder b, LockBackend backend) {
    this.backend = backend;
    this.ticker = b.ticker;
    this.events = new Events(b.listeners);
    this.id = b.clientName + "-" + randomHex();
    this.leaseTime = b.leaseTime;
    this.maxPollNanos = b.maxPollInterval.toNanos();
    this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "dlock-" + id);
      t.setDaemon(true);
      return t;
    });
    scheduler.setRemoveOnCancelPolicy(true);
    this.rounds = idleEndingThread("dlock-renew-" + id);
    this.cleanup = new Cleanup(backend, scheduler, idleEndingThread("dlock-cleanup-" + id));
    try {
      backend.start(new Context());
      this.maxNameLength = backend.maxNameLength();
      this.handsOff = backend.handsOff();
      this.renewer = new Renewer(backend, ticker, events, scheduler, rounds, leaseTime,
          backend.sessionLease().orElse(null), this::abandonHold);
    } catch (RuntimeException e) {
      stopThreads();
      closeQuietly(backend);
      throw e;
    }
  }

  /** A single daemon thread that ends when idle, so an idle client keeps no thread for it. */
  private static ThreadPoolExecutor idleEndingThread(String name) {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  private void stopThreads() {
    scheduler.shutdownNow();
    rounds.shutdownNow();
    cleanup.stop();
  }

  // 128 bits: an owner id names who may renew and release a grant, so it must not be guessable.
  private static String randomHex() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public DistributedLock lock(String name) {
    return view(name, LockKind.EXCLUSIVE);
  }

  @Override
  public DistributedLock lock(String name, Duration leaseTime) {
    Args.name(name, maxNameLength);
    return new LockView(this, Spec.of(name, LockKind.EXCLUSIVE, 1, Args.leaseTime(leaseTime), false));
  }

  @Override
  public DistributedLock fairLock(String name) {
    return view(name, LockKind.FAIR);
  }

  @Override
  public DistributedReadWriteLock readWriteLock(String name) {
    DistributedLock read = view(name, LockKind.READ);
    return new ReadWriteView(name, read, view(name, LockKind.WRITE));
  }

  @Override
  public DistributedSemaphore semaphore(String name, int permits) {
    Args.name(name, maxNameLength);
    if (permits < 1) {
      throw new IllegalArgumentException("permits must be positive: " + permits);
    }
    supports(name, LockKind.PERMIT);
    return new SemaphoreView(new LockView(this, Spec.of(name, LockKind.PERMIT, permits, leaseTime, true)),
        permits);
  }

  private LockView view(String name, LockKind kind) {
    Args.name(name, maxNameLength);
    supports(name, kind);
    return new LockView(this, Spec.of(name, kind, 1, leaseTime, true));
  }

  private void supports(String name, LockKind kind) {
    if (!backend.kinds().contains(kind)) {
      throw new UnsupportedOperationException(String.format(
          "backend %s does not grant %s locks; lock '%s' cannot be made", backend.describe(), kind, name));
    }
  }

  @Override
  public Optional<LockInfo> inspect(String name) {
    Args.name(name, maxNameLength);
    checkOpen(name);
    return call(name, "inspect", () -> backend.inspect(name));
  }

  @Override
  public List<LockInfo> inspectAll() {
    checkOpen("*");
    return call("*", "list", backend::inspectAll);
  }

  @Override
  public List<HeldLock> held() {
    long now = ticker.read();
    List<HeldLock> out = new ArrayList<>();
    for (NameState st : names.values()) {
      for (Hold h : st.holds()) {
        HeldLock snapshot = h.snapshot(now);
        if (snapshot != null) {
          out.add(snapshot);
        }
      }
    }
    out.sort(HELD_ORDER);
    return List.copyOf(out);
  }

  // ---- acquire

  /** Acquires or throws {@link LockTimeoutException}; {@code timeoutNanos < 0} waits forever. */
  Hold acquireOrThrow(Spec spec, long timeoutNanos) throws InterruptedException {
    Acquisition a = new Acquisition(this, spec, timeoutNanos);
    Hold h = a.run(true);
    if (h == null) {
      throw a.timeout();
    }
    return h;
  }

  /** Acquires, or returns null when the wait runs out. */
  @Nullable Hold acquireOrNull(Spec spec, long timeoutNanos) throws InterruptedException {
    return new Acquisition(this, spec, timeoutNanos).run(true);
  }

  /** Takes the lock if it is free now; never waits, and leaves the interrupt flag alone. */
  @Nullable Hold tryNow(Spec spec) {
    try {
      return new Acquisition(this, spec, 0).run(false);
    } catch (InterruptedException e) {
      // A zero wait never blocks, so this is not reached; keep the flag if it ever is.
      Thread.currentThread().interrupt();
      return null;
    }
  }

  String newOwner() {
    return id + ':' + ownerSeq.incrementAndGet();
  }

  /** Starts renewal and the deadline of a new hold; undoes the grant if the client closed meanwhile. */
  void track(Hold h) {
    if (closed) {
      h.state.remove(h);
      h.endAll();
      cleanup.releaseNow(h.grant);
      throw closedException(h.name());
    }
    renewer.add(h);
  }

  /** The deadline of a grant sent at {@code sentAt} that the server keeps for {@code validityNanos}. */
  long deadline(long sentAt, long validityNanos) {
    return renewer.deadline(sentAt, validityNanos);
  }

  /**
   * Withdraws a wait at the backend off the caller's thread, so a dead server does not hold up a
   * caller whose deadline passed. Nothing is sent for an abandoned (crashed) client.
   */
  void cancelQuietly(String name, String owner) {
    if (!abandoned) {
      cleanup.cancel(name, owner);
    }
  }

  /** A grant whose holder was told it is lost: released at the server in the background. */
  void releaseLost(Grant grant) {
    if (!abandoned && !closed) {
      cleanup.releaseLost(grant);
    }
  }

  /** A thread-owned hold whose thread ended without unlocking: released as that thread would have. */
  private void abandonHold(Hold h) {
    if (!h.endAll()) {
      return;
    }
    events.abandoned(h.name(), h.grant.token(), h.thread.getName());
    try {
      finishRelease(h);
    } catch (LockException e) {
      log.warn("dlock: releasing lock '{}' abandoned by thread '{}' failed", h.name(), h.thread.getName(), e);
    }
  }

  // ---- release

  /** Drops one hold; releases at the backend after the last. False if the hold had ended. */
  boolean releaseOne(Hold h) {
    int left = h.exitOne();
    if (left < 0) {
      return false;
    }
    if (left == 0) {
      finishRelease(h);
    }
    return true;
  }

  /** The Lock view's unlock: the current thread's hold, or IllegalMonitorStateException. */
  void unlock(Spec spec) {
    String name = spec.name();
    NameState st = names.get(spec.key());
    Hold h = st == null ? null : st.heldBy(Thread.currentThread());
    if (h == null || !releaseOne(h)) {
      if (closed) {
        throw closedException(name);
      }
      throw new IllegalMonitorStateException(String.format(
          "lock '%s' is not held by thread '%s' (client %s)", name, Thread.currentThread().getName(), id));
    }
  }

  int holdCount(Spec spec) {
    NameState st = names.get(spec.key());
    Hold h = st == null ? null : st.heldBy(Thread.currentThread());
    return h == null ? 0 : h.count();
  }

  private void finishRelease(Hold h) {
    NameState st = h.state;
    st.remove(h);
    renewer.remove(h);
    LeaseLostException loss = h.loss();
    boolean released;
    try {
      released = loss == null && handsOff && h.grant.kind() == LockKind.EXCLUSIVE && st.reserveHandOff(h.spec)
          ? handOff(h)
          : releaseAtBackend(h);
    } finally {
      exit(st);
    }
    Duration held = Duration.ofNanos(ticker.read() - h.acquiredAt);
    if (released) {
      events.released(h.name(), h.grant.token(), held);
    }
    if (loss != null) {
      throw h.copyOfLoss();
    }
    if (!released) {
      NotOwnerException e = new NotOwnerException(String.format(
          "lock '%s' was no longer held by %s (token %d) at release after %s: it expired or another owner"
              + " took it (backend %s)", h.name(), h.grant.owner(), h.grant.token(),
          Durations.format(held), backend.describe()));
      h.markLost(e, true);
      throw e;
    }
  }

  private boolean releaseAtBackend(Hold h) {
    h.state.resetStreak();
    return call(h.name(), "release", () -> backend.release(h.grant));
  }

  /**
   * Passes the grant to a thread of this client queued for it, as a new grant with a higher token:
   * one backend call instead of a release, a notification and an acquire. False if the grant was no
   * longer held.
   */
  private boolean handOff(Hold h) {
    NameState st = h.state;
    String owner = newOwner();
    long sentAt = ticker.read();
    Attempt a;
    try {
      a = call(h.name(), "hand over", () -> backend.handOff(h.grant, owner, h.spec.lease()));
    } catch (RuntimeException e) {
      st.cancelHandOff();
      log.debug("dlock: handing lock '{}' over failed; releasing it instead", h.name(), e);
      return releaseAtBackend(h); // whatever state the failure left, a release clears it
    }
    if (a == null) {
      st.cancelHandOff();
      return releaseAtBackend(h);
    }
    if (!a.isGranted()) {
      st.cancelHandOff();
      return false;
    }
    NameState.Handed left = st.handOver(
        new NameState.Handed(h.spec, new Grant(h.name(), owner, a.token(), LockKind.EXCLUSIVE), a, sentAt));
    if (left != null) {
      cleanup.releaseNow(left.grant()); // its taker gave up or the client closed meanwhile
    }
    return true;
  }

  // ---- loss

  LeaseLostException lostException(Hold h, String why) {
    return new LeaseLostException(String.format(
        "lease on lock '%s' (token %d, owner %s) was lost %s after it was granted: %s",
        h.name(), h.grant.token(), h.grant.owner(),
        Durations.formatNanos(ticker.read() - h.acquiredAt), why), renewer.lastFailure());
  }

  String renewalFailureSuffix() {
    RuntimeException failure = renewer.lastFailure();
    return failure == null ? "" : "; the last renewal failed: " + failure.getMessage();
  }

  // ---- name states

  @Nullable NameState existing(Object key) {
    return names.get(key);
  }

  NameState enter(Spec spec) {
    return names.compute(spec.key(), (k, st) -> {
      if (st == null) {
        st = new NameState(k, spec.name(), spec.kind());
      }
      st.refs++;
      return st;
    });
  }

  void exit(NameState st) {
    names.computeIfPresent(st.key, (k, cur) -> cur != st || --cur.refs > 0 ? cur : null);
  }

  // ---- backend calls

  /** Runs a backend call; an unexpected failure becomes a LockException naming the lock. */
  <T> T call(String name, String what, Supplier<T> op) {
    try {
      return op.get();
    } catch (LockException | UnsupportedOperationException | IllegalArgumentException e) {
      throw e; // the caller's mistake, such as a semaphore's permits other clients disagree with
    } catch (RuntimeException e) {
      throw new LockException(String.format("backend %s failed to %s lock '%s' for client %s: %s",
          backend.describe(), what, name, id, e), e);
    }
  }

  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  // ---- close

  void checkOpen(String name) {
    if (closed) {
      throw closedException(name);
    }
  }

  private LockException closedException(String name) {
    return new LockException(String.format("client %s is %s; lock '%s' is not available", id,
        abandoned ? "abandoned" : "closed", name));
  }

  @Override
  public void close() {
    shutdown(true);
  }

  @Override
  public void abandon() {
    shutdown(false);
  }

  private void shutdown(boolean release) {
    if (!shutdown.compareAndSet(false, true)) {
      return;
    }
    abandoned = !release;
    closed = true;
    stopThreads();
    for (NameState st : names.values()) {
      NameState.Handed untaken = st.close();
      if (untaken != null && release) {
        cleanup.releaseNow(untaken.grant());
      }
      for (Hold h : st.holds()) {
        if (!h.endAll()) {
          continue;
        }
        st.remove(h);
        exit(st);
        h.markLost(new LeaseLostException(String.format("lock '%s' (token %d, owner %s) is no longer held:"
            + " client %s was %s", h.name(), h.grant.token(), h.grant.owner(), id,
            release ? "closed" : "abandoned")), true);
        if (release) {
          cleanup.releaseNow(h.grant);
        }
      }
    }
    if (!release && backend instanceof Abandonable crashable) {
      abandonQuietly(crashable); // a crash leaves the server as it was, queues included
    } else {
      closeQuietly(backend);
    }
  }

  private void abandonQuietly(Abandonable crashable) {
    try {
      crashable.abandon();
    } catch (RuntimeException e) {
      log.warn("dlock: abandoning backend {} failed", backend.describe(), e);
    }
  }

  private static void closeQuietly(LockBackend backend) {
    try {
      backend.close();
    } catch (RuntimeException e) {
      log.warn("dlock: closing backend {} failed", backend.describe(), e);
    }
  }

  @Override
  public String toString() {
    return "LockClient[" + id + ", " + backend.describe() + (closed ? ", closed" : "") + "]";
  }

  /** What the backend sees of this engine. */
  private final class Context implements BackendContext {
    private final LockKind[] kinds = backend.kinds().toArray(new LockKind[0]);

    @Override
    public String clientId() {
      return id;
    }

    @Override
    public Ticker ticker() {
      return ticker;
    }

    @Override
    public void released(String name) {
      for (LockKind kind : kinds) {
        NameState st = names.get(Spec.key(kind, name));
        if (st != null) {
          st.signalRelease(() -> events.woken(name));
        }
      }
    }

    @Override
    public void reconnected(String why) {
      log.info("dlock: {} on {}; re-checking every lease now", why, backend.describe());
      Renewer r = renewer;
      if (r != null) { // null only while the backend starts, when nothing is held yet
        r.recheck(backend.sessionLease().orElse(null));
      }
    }

    @Override
    public void lost(Grant grant, String reason) {
      NameState st = names.get(Spec.key(grant.kind(), grant.name()));
      if (st == null) {
        return;
      }
      for (Hold h : st.holds()) {
        if (h.grant.equals(grant) && h.markLost(lostException(h, reason), false)) {
          releaseLost(grant); // a session the backend gave up on may yet come back with the grant
        }
      }
    }
  }
}
