package dev.dlock;

import dev.dlock.spi.Ticker;
import java.time.Duration;

/**
 * Events of one client's locks, for metrics, logs and tests. Every method has a no-op default, so
 * adding an event breaks no listener. Methods run synchronously on the thread where the event
 * happens, often a caller's thread inside a lock operation: they must be fast and must not block.
 * An exception thrown by a listener is logged and otherwise ignored.
 */
public interface LockListener {

  /** A lock was granted by the server (not on reentry). */
  default void acquired(String name, long token, Duration waited) {}

  /** A lock was released at the server. */
  default void released(String name, long token, Duration held) {}

  /** A held lease was extended by the watchdog. */
  default void renewed(String name, long token) {}

  /** A held lease was lost; see {@link Lease#lost()}. */
  default void lost(String name, long token, LeaseLostException reason) {}

  /** An acquire found the lock held (locally or at the server) and began to wait. */
  default void waited(String name) {}

  /**
   * A waiter competing at the server was woken by a release notification. With one waiter woken per
   * release, this fires at most once per release.
   */
  default void woken(String name) {}

  /**
   * An acquire gave up because its deadline passed: {@code acquire(maxWait)} is about to throw
   * {@link LockTimeoutException}, {@code tryAcquire(maxWait)} to return empty or
   * {@code tryLock(time, unit)} false, or a call that never waits ({@code tryAcquire()},
   * {@code tryLock()}) found the lock held. Fires for every kind of lock, semaphores included; not
   * for an interrupt, a failure or a closed client, which throw instead.
   *
   * @param waited how long the call waited, on the client's {@link Ticker}
   */
  default void timedOut(String name, Duration waited) {}

  /**
   * A thread-owned hold ({@link DistributedLock#lock()} and the other {@code Lock} methods) was
   * released by the watchdog because its owner thread ended without unlocking it. Locks held
   * through a {@link Lease} handle are never abandoned this way.
   */
  default void abandoned(String name, long token, String threadName) {}
}
