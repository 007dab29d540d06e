package dev.dlock;

import java.time.Duration;
import java.util.Optional;

/**
 * Leader election over one lock: every client that opens a latch on the same name stands for
 * election, one of them holds the lock at a time and is the leader, and when the leader closes
 * its latch or loses its lease, another is elected. Built on {@link DistributedLock}, so it works
 * on every backend, with the backend's own waiting (one waiter woken per release) and the
 * client's watchdog renewing the leader's lease.
 *
 * <pre>{@code
 * try (LeaderLatch latch = client.leaderLatch("scheduler", new LeaderListener() {
 *       public void elected(Lease lease) { scheduler.start(lease.token()); }
 *       public void lost(Lease lease, LeaseLostException e) { scheduler.stop(); }
 *     })) {
 *   ...
 * }
 * }</pre>
 *
 * <p>Obtain one with {@link LockClient#leaderLatch}. Thread-safe.
 */
public interface LeaderLatch extends AutoCloseable {

  /** The lock name the election runs on. */
  String name();

  /** True while this client leads with a lease not known to be lost. */
  boolean isLeader();

  /** The leader's lease while this client leads; empty otherwise. */
  Optional<Lease> lease();

  /**
   * Waits until this client leads, or {@code maxWait} runs out.
   *
   * @param maxWait zero or more; zero means do not wait, and a wait longer than a year (365
   *     days) has no deadline, the same in every form that waits
   * @return true if it leads now
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  boolean awaitLeadership(Duration maxWait) throws InterruptedException;

  /**
   * Withdraws from the election: stops waiting, or resigns and releases the lock, then returns.
   * Idempotent. Callable from a listener callback, in which case the latch resigns as soon as the
   * callback returns.
   */
  @Override
  void close();
}
