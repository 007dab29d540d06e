package dev.dlock.bench.targets;

import org.springframework.integration.jdbc.lock.LockRepository;

/**
 * Spring's lock repository with one addition: a failed {@code acquire} (the lock is held, so the
 * caller's {@code lock()} will sleep and retry) is reported to {@link Waits}, which lets W4 unlock
 * only once the waiter really waits, as it does for dlock. Every call goes straight through.
 */
final class WatchedLockRepository implements LockRepository {
  private final LockRepository delegate;
  private final Waits waits;

  WatchedLockRepository(LockRepository delegate, Waits waits) {
    this.delegate = delegate;
    this.waits = waits;
  }

  @Override
  public boolean acquire(String lock) {
    boolean acquired = delegate.acquire(lock);
    if (!acquired) {
      waits.waited(lock);
    }
    return acquired;
  }

  @Override
  public boolean isAcquired(String lock) {
    return delegate.isAcquired(lock);
  }

  @Override
  public boolean delete(String lock) {
    return delegate.delete(lock);
  }

  @Override
  public void deleteExpired() {
    delegate.deleteExpired();
  }

  @Override
  public boolean renew(String lock) {
    return delegate.renew(lock);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
