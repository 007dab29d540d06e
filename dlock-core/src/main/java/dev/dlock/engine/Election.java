package dev.dlock.engine;

import dev.dlock.BackendUnavailableException;
import dev.dlock.DistributedLock;
import dev.dlock.LeaderLatch;
import dev.dlock.LeaderListener;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockException;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LeaderLatch} as a loop on one daemon thread: acquire the lock, report the election,
 * wait for the lease to be lost or the latch closed, report that, and stand again. Why a thread of
 * its own: the wait for the lock may be long and is interruptible, and it gives the listener one
 * ordered stream of calls. The thread is interrupted only while it waits for the lock, never
 * inside a callback; a server that cannot be reached is retried every {@link #RETRY}.
 */
public final class Election implements LeaderLatch {
  private static final Logger log = LoggerFactory.getLogger(Election.class);
  static final Duration RETRY = Duration.ofSeconds(1);

  private final DistributedLock lock;
  private final String name;
  private final LeaderListener listener;
  private final Ticker ticker;
  private final CompletableFuture<Void> closing = new CompletableFuture<>();
  private final Thread thread;
  private volatile @Nullable Lease current;
  private boolean waitingForLock; // guarded by this

  private Election(DistributedLock lock, String name, LeaderListener listener, Ticker ticker) {
    this.lock = lock;
    this.ticker = ticker;
    this.name = name;
    this.listener = listener;
    this.thread = new Thread(this::run, "dlock-leader-" + name);
    thread.setDaemon(true);
  }

  public static Election start(DistributedLock lock, String name, LeaderListener listener, Ticker ticker) {
    Objects.requireNonNull(listener, "listener");
    Election e = new Election(lock, name, listener, ticker);
    e.thread.start();
    return e;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean isLeader() {
    Lease l = current;
    return l != null && l.isValid();
  }

  @Override
  public Optional<Lease> lease() {
    return Optional.ofNullable(current);
  }

  @Override
  public synchronized boolean awaitLeadership(Duration maxWait) throws InterruptedException {
    long wait = Args.waitNanos(maxWait);
    long deadline = ticker.read() + wait;
    while (!isLeader() && !closing.isDone()) {
      if (wait == Args.NO_DEADLINE) {
        wait();
        continue;
      }
      long left = deadline - ticker.read();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return isLeader();
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closing.isDone()) {
        return;
      }
      closing.complete(null);
      if (waitingForLock) {
        thread.interrupt();
      }
      notifyAll();
    }
    if (Thread.currentThread() != thread) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    while (!closing.isDone()) {
      Lease lease = acquire();
      if (lease == null) {
        continue;
      }
      setCurrent(lease);
      if (closing.isDone()) {
        resign(lease);
        return;
      }
      call(() -> listener.elected(lease));
      LeaseLostException lost = awaitLossOrClose(lease);
      if (lost == null) {
        resign(lease);
        return;
      }
      setCurrent(null);
      closeLost(lease);
      call(() -> listener.lost(lease, lost));
    }
  }

  /** The lease, or null to loop again (interrupted by close, or the server was unreachable). */
  private @Nullable Lease acquire() {
    synchronized (this) {
      if (closing.isDone()) {
        return null;
      }
      waitingForLock = true;
    }
    try {
      return lock.acquire();
    } catch (InterruptedException e) {
      return null;
    } catch (BackendUnavailableException e) {
      log.warn("dlock: leader election on '{}' cannot reach the server; retrying in {}: {}", name,
          RETRY, e.getMessage());
      pause();
      return null;
    } catch (LockException e) {
      log.info("dlock: leader election on '{}' ends: {}", name, e.getMessage());
      closing.complete(null);
      return null;
    } finally {
      synchronized (this) {
        waitingForLock = false;
        Thread.interrupted(); // a close that raced the grant; it is seen through closing
      }
    }
  }

  private @Nullable LeaseLostException awaitLossOrClose(Lease lease) {
    CompletableFuture<LeaseLostException> lost = lease.lost().toCompletableFuture();
    CompletableFuture<Object> either = CompletableFuture.anyOf(lost, closing);
    while (!either.isDone()) {
      try {
        either.get();
      } catch (InterruptedException e) {
        // Nobody else holds this thread; only the two signals end the wait.
      } catch (ExecutionException e) {
        throw new IllegalStateException("a loss signal completed exceptionally", e);
      }
    }
    return closing.isDone() ? null : lost.join();
  }

  private void resign(Lease lease) {
    setCurrent(null);
    try {
      lease.close();
    } catch (LockException e) {
      log.warn("dlock: leader of '{}' resigned, but releasing the lock failed: {}", name, e.getMessage());
    }
    call(() -> listener.resigned(lease));
  }

  private static void closeLost(Lease lease) {
    try {
      lease.close();
    } catch (LockException expected) {
      // The lease was lost; closing only cleans up the client's state.
    }
  }

  private void pause() {
    try {
      closing.get(RETRY.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException | InterruptedException e) {
      // Time to retry, or closed meanwhile: the loop looks at closing either way.
    }
  }

  private synchronized void setCurrent(@Nullable Lease lease) {
    current = lease;
    notifyAll();
  }

  private void call(Runnable callback) {
    try {
      callback.run();
    } catch (RuntimeException e) {
      log.error("dlock: a leader listener of '{}' threw; the election goes on", name, e);
    }
  }
}
