package dev.dlock;

import java.time.Duration;
import java.util.Optional;

/**
 * A distributed counting semaphore: at most {@link #permits()} leases of one name are held at once
 * across all clients. Each permit is a lease with its own fencing token, renewed by the client's
 * watchdog and freed by the server when its holder crashes and the lease runs out. Permits are owned
 * by their {@link Lease} handles, not by threads, and are never reentrant: every acquire takes one
 * more permit. Every client of a name must use the same number of permits.
 */
public interface DistributedSemaphore {

  /** The semaphore's name. */
  String name();

  /** How many permits the name has in all. */
  int permits();

  /**
   * Waits for a permit as long as it takes.
   *
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  Lease acquire() throws InterruptedException;

  /**
   * Waits up to {@code maxWait} for a permit.
   *
   * @param maxWait zero or more; zero means do not wait, and a wait longer than a year (365
   *     days) has no deadline, the same in every form that waits
   * @throws LockTimeoutException if none came free in time
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  Lease acquire(Duration maxWait) throws InterruptedException;

  /** Takes a permit if one is free now; never waits. */
  Optional<Lease> tryAcquire();

  /**
   * Waits up to {@code maxWait} for a permit.
   *
   * @param maxWait zero or more; zero means do not wait, and a wait longer than a year (365
   *     days) has no deadline, the same in every form that waits
   * @return the permit, or empty if none came free in time
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  Optional<Lease> tryAcquire(Duration maxWait) throws InterruptedException;
}
