package dev.dlock;

import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A reentrant exclusive lock shared by every client of one backend, with two views.
 *
 * <ul>
 *   <li><b>The {@link Lock} view</b> is owned by the thread, like {@code ReentrantLock}:
 *       {@link #unlock()} from a thread that does not hold it throws
 *       {@link IllegalMonitorStateException}.</li>
 *   <li><b>The {@link Lease} view</b> ({@link #acquire()} and friends) is owned by the handle, which
 *       any thread may close.</li>
 * </ul>
 *
 * <p>Reentrancy is by thread: a thread that holds the lock, through either view, acquires it again
 * at once and with no server call; the hold count goes up and the token stays the same. Threads of
 * one client that wait for the same name queue locally, and only one of them at a time competes at
 * the server. Every wait honours interrupts (except {@link #lock()}, per the {@link Lock} contract)
 * and deadlines, measured on the client's monotonic {@link Ticker}.
 *
 * <p>Instances are cheap, thread-safe views; two views of one name in one client share their state.
 */
public interface DistributedLock extends Lock {

  /** The lock name. */
  String name();

  /**
   * Waits as long as it takes and returns the lease.
   *
   * @throws InterruptedException if interrupted while waiting; nothing is left behind
   */
  Lease acquire() throws InterruptedException;

  /**
   * Waits at most {@code maxWait} and returns the lease.
   *
   * @param maxWait zero or more; zero means do not wait, and a wait longer than a year (365
   *     days) has no deadline, the same in every form that waits
   * @throws LockTimeoutException if the wait runs out, naming the lock, the holder and the time
   * @throws InterruptedException if interrupted while waiting; nothing is left behind
   */
  Lease acquire(Duration maxWait) throws InterruptedException;

  /** Takes the lock if it is free now; never waits. */
  Optional<Lease> tryAcquire();

  /**
   * Waits at most {@code maxWait}; empty if the wait runs out.
   *
   * @param maxWait zero or more; zero means do not wait, and a wait longer than a year (365
   *     days) has no deadline, the same in every form that waits
   * @throws InterruptedException if interrupted while waiting; nothing is left behind
   */
  Optional<Lease> tryAcquire(Duration maxWait) throws InterruptedException;

  /** How many times the current thread holds this lock: 0 if it does not. */
  int holdCount();

  /** True if the current thread holds this lock. */
  default boolean isHeldByCurrentThread() {
    return holdCount() > 0;
  }

  /**
   * {@inheritDoc}
   *
   * @throws LockException if the server fails; waits otherwise ignore interrupts, which stay set
   */
  @Override
  void lock();

  /**
   * {@inheritDoc}
   *
   * @throws IllegalMonitorStateException if the current thread does not hold this lock
   * @throws LeaseLostException if the lease was lost before this release; the lock is released
   *     locally all the same
   */
  @Override
  void unlock();

  /**
   * {@inheritDoc} A time of zero or less means do not wait; a time longer than a year (365 days)
   * has no deadline, as in every form that waits.
   */
  @Override
  boolean tryLock(long time, TimeUnit unit) throws InterruptedException;

  /** Not supported: a distributed lock has no distributed condition queue. */
  @Override
  default Condition newCondition() {
    throw new UnsupportedOperationException("dlock locks have no conditions: " + name());
  }
}
