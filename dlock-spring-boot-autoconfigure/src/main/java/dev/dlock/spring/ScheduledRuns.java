package dev.dlock.spring;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.spi.Ticker;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link ScheduledLock} methods: one try per tick, a skip when the lock is held, the hold kept
 * on until {@code lockAtLeastFor}, and an interrupt when the lease is lost mid-run.
 *
 * <p>Why this node remembers the holds it keeps on after a run: dlock locks are reentrant by
 * thread, so the scheduler thread that ran the last tick would otherwise reenter the lock it still
 * holds and run the next tick inside {@code lockAtLeastFor}.
 */
final class ScheduledRuns implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ScheduledLock.class);

  private final Supplier<LockClient> client;
  private final Supplier<List<ScheduledLockListener>> listeners;
  // Real time unless a test sets it: lockAtLeastFor is measured on it.
  Ticker ticker = Ticker.system();
  private final Map<String, Lease> keptOn = new ConcurrentHashMap<>();
  private final ScheduledExecutorService releases = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "dlock-scheduled-release");
    t.setDaemon(true);
    return t;
  });

  ScheduledRuns(Supplier<LockClient> client, Supplier<List<ScheduledLockListener>> listeners) {
    this.client = client;
    this.listeners = listeners;
  }

  @Nullable Object run(MethodSettings.Scheduled s, MethodInvocation job) throws Throwable {
    if (keptOn.containsKey(s.name())) {
      return skip(s, "this node keeps it until lockAtLeastFor after its last run");
    }
    LockClient c = client.get();
    DistributedLock lock = s.fixedLease() != null ? c.lock(s.name(), s.fixedLease()) : c.lock(s.name());
    Optional<Lease> got = lock.tryAcquire();
    if (got.isEmpty()) {
      return skip(s, "another node holds it");
    }
    Lease lease = got.get();
    long start = ticker.read();
    Runner runner = new Runner(Thread.currentThread(), s.interrupt());
    lease.onLost(e -> {
      if (runner.lost()) {
        log.warn("dlock: scheduled lock '{}' was lost during its run{}", s.name(),
            s.interrupt() ? "; the job was interrupted" : "", e);
        listeners.get().forEach(l -> l.lost(s.name(), e));
      } else {
        log.debug("dlock: scheduled lock '{}' was lost after its run, before lockAtLeastFor", s.name(), e);
      }
    });
    Lease outer = CurrentLease.enter(lease);
    @Nullable Object result;
    try {
      result = job.proceed();
    } catch (Throwable t) {
      runner.finish();
      CurrentLease.restore(outer);
      try {
        keepOnOrClose(s, lease, start); // a failed run holds the tick too, or a node behind reruns it
      } catch (RuntimeException e) {
        t.addSuppressed(e);
      }
      throw t;
    }
    runner.finish();
    CurrentLease.restore(outer);
    keepOnOrClose(s, lease, start);
    return result;
  }

  private @Nullable Object skip(MethodSettings.Scheduled s, String why) {
    log.debug("dlock: skipped a run of '{}': {}", s.name(), why);
    listeners.get().forEach(l -> l.skipped(s.name()));
    return null;
  }

  private void keepOnOrClose(MethodSettings.Scheduled s, Lease lease, long start) {
    long left = Math.min(s.atLeast().toNanos() - (ticker.read() - start), lease.remaining().toNanos());
    if (left <= 0) {
      try {
        lease.close();
      } catch (LeaseLostException e) {
        // Already logged, counted and, if asked, interrupted the run when the loss came.
        log.debug("dlock: scheduled lock '{}' ended lost", s.name(), e);
      }
      return;
    }
    keptOn.put(s.name(), lease);
    releases.schedule(() -> release(s.name(), lease), left, TimeUnit.NANOSECONDS);
  }

  private void release(String name, Lease lease) {
    keptOn.remove(name, lease);
    try {
      lease.close();
    } catch (LeaseLostException e) {
      log.debug("dlock: scheduled lock '{}' was lost before lockAtLeastFor ended", name, e);
    } catch (RuntimeException e) {
      log.warn("dlock: releasing scheduled lock '{}' after lockAtLeastFor failed", name, e);
    }
  }

  /** Releases the holds kept on after their runs: the context is closing. */
  @Override
  public void close() {
    releases.shutdownNow();
    keptOn.forEach(this::release);
  }

  /**
   * The thread of one run. Why a monitor: a loss signalled as the run ends must not interrupt the
   * scheduler's thread after the run, when the interrupt would hit the next task instead.
   */
  private static final class Runner {
    private final Thread thread;
    private final boolean interrupt;
    private boolean running = true;
    private boolean interrupted;

    Runner(Thread thread, boolean interrupt) {
      this.thread = thread;
      this.interrupt = interrupt;
    }

    /** True if the run was still going. */
    synchronized boolean lost() {
      if (running && interrupt) {
        interrupted = true;
        thread.interrupt();
      }
      return running;
    }

    /** On the run's thread, as it ends: clears an interrupt this class made. */
    synchronized void finish() {
      running = false;
      if (interrupted) {
        Thread.interrupted();
      }
    }
  }
}
