package dev.dlock.bench.targets;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * One ShedLock name seen as a {@link Lock}. {@link #tryLock()} is ShedLock's own
 * {@code lock(LockConfiguration)}; ShedLock has no way to wait, so {@link #lock()} retries it
 * every {@value #RETRY_MILLIS} ms, the bench's choice, stated in the legend. Not reentrant.
 */
final class ShedLockLock implements Lock {
  /** The sleep between tries of a blocking {@code lock()}. */
  static final long RETRY_MILLIS = 1;

  private final LockProvider provider;
  private final String name;
  private final Duration lockAtMostFor;
  private final Waits waits;
  // The database row excludes every other holder, so one field serves whichever thread holds it.
  private volatile SimpleLock held;

  ShedLockLock(LockProvider provider, String name, Duration lockAtMostFor, Waits waits) {
    this.provider = provider;
    this.name = name;
    this.lockAtMostFor = lockAtMostFor;
    this.waits = waits;
  }

  @Override
  public boolean tryLock() {
    Optional<SimpleLock> lock =
        provider.lock(new LockConfiguration(Instant.now(), name, lockAtMostFor, Duration.ZERO));
    lock.ifPresent(l -> held = l);
    return lock.isPresent();
  }

  @Override
  public void lock() {
    if (tryLock()) {
      return;
    }
    waits.waited(name); // once per wait, as dlock's listener event
    boolean interrupted = false;
    while (!tryLock()) {
      try {
        Thread.sleep(RETRY_MILLIS);
      } catch (InterruptedException e) {
        interrupted = true; // lock() is not interruptible: keep trying, restore the flag after
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (tryLock()) {
      return;
    }
    waits.waited(name);
    while (!tryLock()) {
      Thread.sleep(RETRY_MILLIS);
    }
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(time);
    while (!tryLock()) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      Thread.sleep(RETRY_MILLIS);
    }
    return true;
  }

  @Override
  public void unlock() {
    SimpleLock lock = held;
    if (lock == null) {
      throw new IllegalMonitorStateException("'" + name + "' is not held through this lock");
    }
    held = null;
    lock.unlock();
  }

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException("ShedLock has no conditions");
  }
}
