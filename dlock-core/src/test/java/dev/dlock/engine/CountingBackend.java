package dev.dlock.engine;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.HandsOff;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockRequest;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the calls the engine makes to a real backend (the in-memory one), so tests can show what
 * costs a round trip. It forwards everything; nothing is faked.
 */
class CountingBackend implements LockBackend, HandsOff {
  final LockBackend delegate;
  final AtomicInteger acquires = new AtomicInteger();
  final AtomicInteger releases = new AtomicInteger();
  final AtomicInteger handOffs = new AtomicInteger();
  final CountDownLatch firstHandOff = new CountDownLatch(1);
  /** Releases ('r') and hand-offs ('h') in the order they were called. */
  final StringBuffer endings = new StringBuffer();
  final List<Integer> renewBatchSizes = new CopyOnWriteArrayList<>();

  CountingBackend(LockBackend delegate) {
    this.delegate = delegate;
  }

  int calls() {
    return acquires.get() + releases.get() + handOffs.get() + renewBatchSizes.size();
  }

  @Override
  public void start(BackendContext context) {
    delegate.start(context);
  }

  @Override
  public Attempt tryAcquire(LockRequest request) {
    acquires.incrementAndGet();
    return delegate.tryAcquire(request);
  }

  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    renewBatchSizes.add(grants.size());
    return delegate.renew(grants, leaseTime);
  }

  @Override
  public boolean release(Grant grant) {
    releases.incrementAndGet();
    endings.append('r');
    return delegate.release(grant);
  }

  @Override
  public Attempt handOff(Grant grant, String owner, Duration leaseTime) {
    if (!(delegate instanceof HandsOff handing)) {
      return null;
    }
    handOffs.incrementAndGet();
    endings.append('h');
    firstHandOff.countDown();
    return handing.handOff(grant, owner, leaseTime);
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
