package dev.dlock.engine;

import dev.dlock.internal.CallTimeout;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work at the backend that no caller waits for: withdrawing a wait that ended, releasing a
 * grant whose holder was told it is lost. Why a thread of its own: a dead server must hold up
 * neither a caller whose deadline passed nor the renewal rounds. Why a lost grant's release is
 * tried again while the server is away: a server that comes back may still keep it (a ZooKeeper
 * session that revives keeps its node) while its holder believes it gone.
 */
final class Cleanup {
  private static final Logger log = LoggerFactory.getLogger(Cleanup.class);
  private static final long RETRY_FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
  private static final long RETRY_MAX_NANOS = TimeUnit.SECONDS.toNanos(8);

  private final LockBackend backend;
  private final ScheduledExecutorService timers;
  private final ThreadPoolExecutor worker;
  private volatile boolean stopped;

  Cleanup(LockBackend backend, ScheduledExecutorService timers, ThreadPoolExecutor worker) {
    this.backend = backend;
    this.timers = timers;
    this.worker = worker;
  }

  /**
   * Withdraws a wait at the backend; a healthy server's answer is waited for a moment, so the
   * queue entry is gone before the caller moves on. An entry whose cancel is lost expires by itself.
   */
  void cancel(String name, String owner) {
    Future<?> done;
    try {
      done = worker.submit(() -> {
        try {
          backend.cancel(name, owner);
        } catch (RuntimeException e) {
          log.warn("dlock: could not cancel the wait of {} for lock '{}'", owner, name, e);
        }
      });
    } catch (RejectedExecutionException stopping) {
      return;
    }
    try {
      done.get(CallTimeout.MINIMUM.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // an interrupted caller does not wait; the cancel goes on
    } catch (ExecutionException | TimeoutException | CancellationException e) {
      // Logged by the task, or still under way.
    }
  }

  /** Releases a lost grant, owner-checked, trying again with a growing pause while the server is away. */
  void releaseLost(Grant grant) {
    releaseLost(grant, RETRY_FIRST_NANOS);
  }

  private void releaseLost(Grant grant, long retryNanos) {
    if (stopped) {
      return;
    }
    try {
      worker.execute(() -> {
        try {
          backend.release(grant);
        } catch (RuntimeException e) {
          log.debug("dlock: releasing lost lock '{}' of {} failed; trying again in {}", grant.name(),
              grant.owner(), Durations.formatNanos(retryNanos), e);
          try {
            timers.schedule(() -> releaseLost(grant, Math.min(RETRY_MAX_NANOS, retryNanos * 2)),
                retryNanos, TimeUnit.NANOSECONDS);
          } catch (RejectedExecutionException stopping) {
            // The client is closing.
          }
        }
      });
    } catch (RejectedExecutionException stopping) {
      // The client is closing and releases what it holds.
    }
  }

  /** Releases a grant now, on the caller's thread; a failure is logged, and the lease ends it. */
  void releaseNow(Grant grant) {
    try {
      backend.release(grant);
    } catch (RuntimeException e) {
      log.warn("dlock: could not release lock '{}' of {}; it expires by its lease", grant.name(),
          grant.owner(), e);
    }
  }

  /** Sends nothing more in the background. */
  void stop() {
    stopped = true;
    worker.shutdownNow();
  }
}
