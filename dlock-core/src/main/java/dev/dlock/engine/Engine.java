package dev.dlock.engine;

import dev.dlock.DistributedLock;
import dev.dlock.DistributedReadWriteLock;
import dev.dlock.DistributedSemaphore;
import dev.dlock.HeldLock;
import dev.dlock.LeaderLatch;
import dev.dlock.LeaderListener;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import dev.dlock.LockTimeoutException;
import dev.dlock.internal.Abandonable;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.HandsOff;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockInfo;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.SpareTokens;
import dev.dlock.spi.Ticker;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine behind every backend: reentrancy, the local wait queue, deadlines and interrupts, lease
 * validity, the loss signal and events live here once, and the backend answers only grant, renew,
 * release and cancel. One client is one engine; it builds the parts and hands each what it needs
 * (an {@link EngineContext}), and none calls back: per-name state lives in {@link Names}; an
 * acquire is an {@link Acquisition}, a release or hand-off a {@link Release}; renewal runs on the
 * client's single scheduler thread ({@link Renewer}).
 */
public final class Engine implements LockClient, Abandonable {
  private static final Logger log = LoggerFactory.getLogger(Engine.class);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Comparator<HeldLock> HELD_ORDER = Comparator.comparing(HeldLock::name)
      .thenComparing(HeldLock::kind).thenComparingLong(HeldLock::token);

  private final LockBackend backend;
  private final Ticker ticker;
  private final Events events;
  private final String id;
  private final Duration leaseTime;
  private final int maxNameLength;
  private final EngineContext ctx;
  private final Names names;
  private final ScheduledExecutorService scheduler;
  // Renewal rounds and background clean-up each on a thread of their own, so a hung server call
  // delays neither the deadlines on the timer thread nor each other.
  private final ExecutorService rounds;
  private final Cleanup cleanup;
  private final Renewer renewer;
  private final Release release;
  private final AtomicBoolean shutdown = new AtomicBoolean();

  /**
   * The settings a {@link dev.dlock.LockClientBuilder} collected, checked already; {@code scheduler}
   * is null when the client makes its own threads.
   */
  public record Settings(String clientName, Duration leaseTime, Duration maxPollInterval, Ticker ticker,
      List<LockListener> listeners, @Nullable ScheduledExecutorService scheduler) {}

  /** The entry point of the API into the engine: starts a client over an opened backend. */
  public static LockClient start(Settings settings, LockBackend backend) {
    return new Engine(settings, backend);
  }

  private Engine(Settings b, LockBackend backend) {
    this.backend = backend;
    this.ticker = b.ticker();
    this.events = new Events(b.listeners());
    this.id = b.clientName() + "-" + randomHex();
    this.leaseTime = b.leaseTime();
    if (b.scheduler() != null) {
      this.scheduler = new BorrowedScheduler(b.scheduler()); // rounds too, so a fake drives them
      this.rounds = scheduler;
    } else {
      ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "dlock-" + id);
        t.setDaemon(true);
        return t;
      });
      timers.setRemoveOnCancelPolicy(true);
      this.scheduler = timers;
      this.rounds = idleEndingThread("dlock-renew-" + id);
    }
    this.cleanup = new Cleanup(backend, scheduler, idleEndingThread("dlock-cleanup-" + id));
    this.ctx = new EngineContext(backend, ticker, events, id, b.maxPollInterval().toNanos(), cleanup);
    this.names = ctx.names;
    try {
      backend.start(new Context());
      this.maxNameLength = backend.maxNameLength();
      // The renewer hands a hold whose thread ended to the release path, made just after it.
      Release[] releases = new Release[1];
      this.renewer = new Renewer(backend, ticker, events, scheduler, rounds, leaseTime,
          backend.sessionLease().orElse(null), h -> releases[0].abandoned(h));
      int spare = backend instanceof SpareTokens s ? Math.max(0, s.spareTokens()) : 0;
      this.release = releases[0] = new Release(ctx, renewer, backend instanceof HandsOff h ? h : null, spare);
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
  public LeaderLatch leaderLatch(String name, LeaderListener listener) {
    return Election.start(lock(name), name, listener, ticker);
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
    names.checkOpen(name);
    return ctx.calls.call(name, "inspect", () -> backend.inspect(name));
  }

  @Override
  public List<LockInfo> inspectAll() {
    names.checkOpen("*");
    return ctx.calls.call("*", "list", backend::inspectAll);
  }

  @Override
  public List<HeldLock> held() {
    long now = ticker.read();
    List<HeldLock> out = new ArrayList<>();
    for (NameState st : names.all()) {
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
    Acquisition a = new Acquisition(ctx, renewer, spec, timeoutNanos);
    Hold h = a.run(true);
    if (h == null) {
      throw a.timeout();
    }
    return h;
  }

  /** Acquires, or returns null when the wait runs out. */
  @Nullable Hold acquireOrNull(Spec spec, long timeoutNanos) throws InterruptedException {
    return new Acquisition(ctx, renewer, spec, timeoutNanos).run(true);
  }

  /** Takes the lock if it is free now; never waits, and leaves the interrupt flag alone. */
  @Nullable Hold tryNow(Spec spec) {
    try {
      return new Acquisition(ctx, renewer, spec, 0).run(false);
    } catch (InterruptedException e) {
      // A zero wait never blocks, so this is not reached; keep the flag if it ever is.
      Thread.currentThread().interrupt();
      return null;
    }
  }

  // ---- release

  /** The release path that lease handles and the Lock view's unlock share. */
  Release release() {
    return release;
  }

  void unlock(Spec spec) {
    release.unlock(spec);
  }

  int holdCount(Spec spec) {
    Hold h = names.heldByCurrentThread(spec);
    return h == null ? 0 : h.count();
  }

  // ---- close

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
    names.close(!release);
    stopThreads();
    for (NameState st : names.all()) {
      NameState.Handed untaken = st.close();
      if (untaken != null && release) {
        cleanup.releaseNow(untaken.grant());
      }
      for (Hold h : st.holds()) {
        if (!h.endAll()) {
          continue;
        }
        st.remove(h);
        names.exit(st);
        h.markLost(new LeaseLostException(String.format("lock '%s' (token %d, owner %s) is no longer held:"
            + " client %s was %s", h.name(), h.token, h.grant.owner(), id,
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
    return "LockClient[" + id + ", " + backend.describe() + (names.isClosed() ? ", closed" : "") + "]";
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
        NameState st = names.existing(Spec.key(kind, name));
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
      NameState st = names.existing(Spec.key(grant.kind(), grant.name()));
      if (st == null) {
        return;
      }
      for (Hold h : st.holds()) {
        if (h.grant.equals(grant) && h.markLost(h.lostException(reason), false)) {
          ctx.releaseLost(grant); // a session the backend gave up on may yet come back with the grant
        }
      }
    }
  }
}
