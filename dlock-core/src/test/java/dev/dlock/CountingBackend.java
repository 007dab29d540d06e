package dev.dlock;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the calls the engine makes to a real backend (the in-memory one), so tests can show what
 * costs a round trip. It forwards everything; nothing is faked.
 */
class CountingBackend implements LockBackend {
  final LockBackend delegate;
  final AtomicInteger acquires = new AtomicInteger();
  final AtomicInteger releases = new AtomicInteger();
  final List<Integer> renewBatchSizes = new CopyOnWriteArrayList<>();

  CountingBackend(LockBackend delegate) {
    this.delegate = delegate;
  }

  int calls() {
    return acquires.get() + releases.get() + renewBatchSizes.size();
  }

  @Override
  public void start(BackendContext context) {
    delegate.start(context);
  }

  @Override
  public Attempt tryAcquire(String name, String owner, Duration leaseTime, boolean willWait) {
    acquires.incrementAndGet();
    return delegate.tryAcquire(name, owner, leaseTime, willWait);
  }

  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    renewBatchSizes.add(grants.size());
    return delegate.renew(grants, leaseTime);
  }

  @Override
  public boolean release(Grant grant) {
    releases.incrementAndGet();
    return delegate.release(grant);
  }

  @Override
  public void cancel(String name, String owner) {
    delegate.cancel(name, owner);
  }

  @Override
  public String describe() {
    return "counting(" + delegate.describe() + ")";
  }

  @Override
  public void close() {
    delegate.close();
  }
}
