package dev.dlock.spi;

import java.time.Duration;

/**
 * A capability of a {@link LockBackend} whose server queues waiters itself, such as a PostgreSQL
 * advisory lock, a MariaDB {@code GET_LOCK} or a row lock taken with {@code SELECT ... FOR UPDATE}.
 * The engine then waits for exclusive locks through {@link #acquireWaiting} instead of polling
 * {@link LockBackend#tryAcquire}; its first try for a name is a plain {@code tryAcquire} without
 * {@code willWait}.
 */
public interface WaitsAtServer {

  /**
   * Like {@link LockBackend#tryAcquire} with {@code willWait}, but the server blocks until the lock
   * is free or {@code maxWait} runs out, then answers "held" (with a zero retry hint). The engine
   * calls it in slices no longer than its poll interval, with the same owner, until granted or it
   * gives up and calls {@link LockBackend#cancel}.
   *
   * @throws InterruptedException if the calling thread is interrupted while the server waits: the
   *     backend stops the wait promptly (cancelling the statement) and undoes any grant it made
   */
  Attempt acquireWaiting(String name, String owner, Duration leaseTime, Duration maxWait)
      throws InterruptedException;
}
