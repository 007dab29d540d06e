package dev.dlock.engine;

import dev.dlock.DistributedSemaphore;
import dev.dlock.Lease;
import java.time.Duration;
import java.util.Optional;

/**
 * A {@link DistributedSemaphore}: the handle half of a permit-kind {@link LockView}, which already
 * does every acquire; a semaphore adds only its permit count, and leaves out the thread-owned
 * {@code Lock} methods that make no sense for permits.
 */
final class SemaphoreView implements DistributedSemaphore {
  private final LockView permits;
  private final int count;

  SemaphoreView(LockView permits, int count) {
    this.permits = permits;
    this.count = count;
  }

  @Override
  public String name() {
    return permits.name();
  }

  @Override
  public int permits() {
    return count;
  }

  @Override
  public Lease acquire() throws InterruptedException {
    return permits.acquire();
  }

  @Override
  public Lease acquire(Duration maxWait) throws InterruptedException {
    return permits.acquire(maxWait);
  }

  @Override
  public Optional<Lease> tryAcquire() {
    return permits.tryAcquire();
  }

  @Override
  public Optional<Lease> tryAcquire(Duration maxWait) throws InterruptedException {
    return permits.tryAcquire(maxWait);
  }

  @Override
  public String toString() {
    return "DistributedSemaphore[" + name() + ", " + count + " permits]";
  }
}
