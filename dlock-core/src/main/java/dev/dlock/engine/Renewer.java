package dev.dlock.engine;

import dev.dlock.internal.CallTimeout;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's watchdog and its loss deadlines. A hold is valid until the send time of its last
 * successful grant or renewal plus the lease, less a margin for clock drift and the server's expiry
 * granularity: the server cannot expire it sooner, so a holder told at that deadline is told before
 * anyone else can be granted the lock. Why two threads: the timer thread never does I/O and checks
 * each hold at its deadline, so a loss is declared on time even while a renewal call hangs on a
 * frozen server; renewal rounds run on a thread of their own, renew every renewable hold in one
 * backend call and are bounded by the time left on the earliest lease. A round also releases
 * thread-owned holds whose thread has ended. After a reconnect ({@link #recheck}) a round runs at
 * once and verifies fixed leases too, renewing each only to the end it already had.
 */
final class Renewer {
  private static final Logger log = LoggerFactory.getLogger(Renewer.class);
  // Beside clock drift and the server's expiry granularity, the margin covers the timer thread's
  // own delay: on a busy machine (2 cores, a test suite running in parallel) it was seen to fire the
  // deadline of a 1 s lease more than the 12 ms late that a 2 ms floor gave it.
  private static final long MIN_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
  private static final long ONE_MILLI = TimeUnit.MILLISECONDS.toNanos(1);
  // Most holds end long before their deadline. Arming a timer for each (a schedule, then a cancel,
  // both under the one lock of the timer queue that every acquiring thread shares) cost more than
  // the rest of a grant's bookkeeping, so a new hold waits in a queue and a sweep, at most one
  // pending, arms those still held. Its delay is far below any deadline it defers (see watch).
  static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final LockBackend backend;
  private final Ticker ticker;
  private final Events events;
  private final ScheduledExecutorService timers;
  private final Executor rounds;
  private final Consumer<Hold> abandon;
  // A session's timeout may change when a new session negotiates another; the client lease never does.
  private volatile Duration serverLease;
  private volatile long serverLeaseNanos;
  private final long leaseNanos;
  private final boolean sessionBound;
  private final Set<Hold> holds = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean roundQueued = new AtomicBoolean();
  private final AtomicBoolean recheckQueued = new AtomicBoolean();
  private final Queue<Hold> unwatched = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean sweepQueued = new AtomicBoolean();
  private volatile @Nullable RuntimeException lastFailure;

  /**
   * @param timers       the timer thread: deadlines and the renewal period, never I/O
   * @param rounds       one thread for renewal rounds
   * @param leaseTime    the lease of a watchdog hold
   * @param sessionLease the lease the server gives every grant, if the backend names one, else null
   * @param abandon      releases a thread-owned hold whose thread ended
   */
  Renewer(LockBackend backend, Ticker ticker, Events events, ScheduledExecutorService timers,
      Executor rounds, Duration leaseTime, @Nullable Duration sessionLease, Consumer<Hold> abandon) {
    this.backend = backend;
    this.ticker = ticker;
    this.events = events;
    this.timers = timers;
    this.rounds = rounds;
    this.abandon = abandon;
    this.sessionBound = sessionLease != null;
    this.serverLease = sessionLease != null ? sessionLease : leaseTime;
    this.serverLeaseNanos = serverLease.toNanos();
    this.leaseNanos = leaseTime.toNanos();
    tick();
  }

  /**
   * A round every third of the lease: the server's as it is now, or the client's lease time if
   * that is shorter (a session that outlasts it is still checked as often as the client asked).
   */
  private void tick() {
    try {
      timers.schedule(() -> {
        trigger(false);
        tick();
      }, Math.max(1, Math.min(leaseNanos, serverLeaseNanos) / 3), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      // The client is closing: no more rounds.
    }
  }

  @Nullable RuntimeException lastFailure() {
    return lastFailure;
  }

  /** How long before the server could let a lease of {@code leaseNanos} go the client counts it lost. */
  static long margin(long leaseNanos) {
    return Math.min(leaseNanos / 2, leaseNanos / 100 + MIN_MARGIN_NANOS);
  }

  /**
   * The deadline of a grant sent at {@code sentAt} and kept by the server for {@code validityNanos},
   * or less where the server's lease is a session.
   */
  long deadline(long sentAt, long validityNanos) {
    return end(sentAt, sessionBound ? Math.min(validityNanos, serverLeaseNanos) : validityNanos);
  }

  /** The end of a lease of {@code leaseNanos} sent at {@code sentAt}, less the margin. */
  static long end(long sentAt, long leaseNanos) {
    return sentAt + leaseNanos - margin(leaseNanos);
  }

  /**
   * Tracks a new hold: checks it at its deadline and renews it if it is renewed (every hold, where
   * the server's lease is a session), at once if the grant has less than two thirds of the lease
   * left: a hold renewed on the regular tick has those two thirds for its round, and a grant found
   * late (a ZooKeeper waiter whose session last reached the leader a while ago) must not have less.
   * A fixed lease granted short is first topped up to its whole lease, before lock() returns.
   */
  void add(Hold h) {
    holds.add(h);
    if (!h.renewed && !sessionBound) {
      topUp(h);
    } else if (h.validUntil - ticker.read() < serverLeaseNanos / 3 * 2) {
      trigger(false);
    }
    watch(h);
  }

  /**
   * Tracks the next turn on a grant handed within the client: renewed with the others on the
   * regular tick, as its grant was, and never topped up, since its server lease did not change.
   */
  void addTurn(Hold h) {
    holds.add(h);
    watch(h);
  }

  void remove(Hold h) {
    holds.remove(h);
    var check = h.expiryCheck;
    if (check != null) {
      check.cancel(false);
    }
  }

  /**
   * A reconnect or failover: the server may have forgotten grants, so re-check every hold now; a
   * new session may also have negotiated another timeout, which later deadlines count from.
   */
  void recheck(@Nullable Duration sessionLease) {
    if (sessionBound && sessionLease != null) {
      serverLease = sessionLease;
      serverLeaseNanos = sessionLease.toNanos();
    }
    trigger(true);
  }

  private void topUp(Hold h) {
    long lease = Durations.saturatedNanos(h.spec.lease());
    long sentAt = ticker.read();
    if (h.validUntil - sentAt >= lease / 4 * 3) {
      return;
    }
    try {
      if (CallTimeout.within(Math.max(0, h.validUntil - sentAt),
          () -> backend.renew(List.of(h.grant), h.spec.lease())).isEmpty()) {
        h.extendTo(deadline(sentAt, lease));
      } else {
        h.markGone(backend);
      }
    } catch (RuntimeException e) {
      log.warn("dlock: could not extend lock '{}' to its lease; it is lost when its shorter grant runs out",
          h.name(), e);
    }
  }

  /**
   * Checks a hold at its deadline, and again later if a renewal moved the deadline. A deadline
   * further off than two sweeps is armed by the next sweep instead, if the hold is still held then.
   */
  private void watch(Hold h) {
    if (h.validUntil - ticker.read() <= 2 * SWEEP_NANOS) {
      arm(h);
      return;
    }
    unwatched.add(h);
    if (sweepQueued.compareAndSet(false, true)) {
      try {
        timers.schedule(this::sweep, SWEEP_NANOS, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closing) {
        // The client is closing; its holds end with it.
      }
    }
  }

  /** Arms the deadline of every hold that was added since the last sweep and is still held. */
  private void sweep() {
    sweepQueued.set(false);
    for (Hold h; (h = unwatched.poll()) != null; ) {
      if (!h.isEnded() && h.loss() == null) {
        arm(h);
      }
    }
  }

  private void arm(Hold h) {
    long delay = h.validUntil - ticker.read();
    try {
      h.expiryCheck = timers.schedule(() -> {
        if (!h.isEnded() && h.loss() == null && !h.checkExpiry()) {
          arm(h);
        }
      }, Math.max(0, delay), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      // The client is closing; its holds end with it.
    }
  }

  private void trigger(boolean recheck) {
    if (recheck) {
      recheckQueued.set(true);
    }
    if (!roundQueued.compareAndSet(false, true)) {
      return; // a round is queued already and will see this one's holds
    }
    try {
      rounds.execute(() -> {
        roundQueued.set(false);
        roundGuarded(recheckQueued.getAndSet(false));
      });
    } catch (RejectedExecutionException closing) {
      // The client is closing; its holds end with it.
    }
  }

  /** Nothing may escape a round: it would end the thread's work silently. */
  private void roundGuarded(boolean recheck) {
    try {
      round(recheck);
    } catch (RuntimeException | Error e) {
      log.error("dlock: the renewal round on {} failed unexpectedly", backend.describe(), e);
    }
  }

  @SuppressWarnings("ModifyCollectionInEnhancedForLoop") // holds is a concurrent set
  private void round(boolean recheck) {
    List<Hold> renewable = new ArrayList<>();
    List<Hold> fixed = new ArrayList<>();
    for (Hold h : holds) {
      if (h.isEnded() || h.loss() != null || h.checkExpiry()) {
        holds.remove(h);
      } else if (h.renewed && h.ownerThreadEnded()) {
        holds.remove(h);
        abandon.accept(h);
      } else if (h.renewed || sessionBound) {
        renewable.add(h);
      } else if (recheck) {
        fixed.add(h);
      }
    }
    if (!renewable.isEmpty()) {
      renew(renewable, serverLease);
    }
    for (Hold h : fixed) {
      long left = h.validUntil - ticker.read();
      if (left > 0) {
        renew(List.of(h), Duration.ofNanos(Math.max(ONE_MILLI, left))); // verifies, keeps its end
      }
    }
  }

  private void renew(List<Hold> batch, Duration lease) {
    List<Grant> grants = new ArrayList<>(batch.size());
    long earliest = batch.get(0).validUntil;
    for (Hold h : batch) {
      grants.add(h.grant);
      earliest = h.validUntil - earliest < 0 ? h.validUntil : earliest;
    }
    long sentAt = ticker.read();
    Set<Grant> gone;
    try {
      gone = CallTimeout.within(Math.max(0, earliest - sentAt), () -> backend.renew(grants, lease));
      lastFailure = null;
    } catch (RuntimeException e) {
      lastFailure = e;
      log.warn("dlock: renewing {} lease(s) on {} failed; each is lost at its deadline unless a later"
          + " renewal succeeds", batch.size(), backend.describe(), e);
      return;
    }
    long until = deadline(sentAt, Durations.saturatedNanos(lease));
    for (Hold h : batch) {
      if (gone.contains(h.grant)) {
        holds.remove(h);
        h.markGone(backend);
      } else {
        h.extendTo(until);
        events.renewed(h.name(), h.token);
      }
    }
  }
}
