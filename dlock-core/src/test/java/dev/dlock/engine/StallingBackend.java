package dev.dlock.engine;

import dev.dlock.BackendUnavailableException;
import dev.dlock.internal.CallTimeout;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockInfo;
import dev.dlock.spi.LockRequest;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The in-memory backend with acquire and cancel calls that can hang, as calls to a frozen server
 * do: a stalled call blocks in earnest until the test lets it go or its CallTimeout bound passes,
 * as a real client's timeout would, and every acquire records the bound the engine gave it.
 * Everything else is the real backend. (The testkit's {@code HangingBackend} hangs renewals, on
 * virtual time.)
 */
class StallingBackend implements LockBackend {
  private static final Duration OWN_TIMEOUT = Duration.ofSeconds(30);
  final LockBackend delegate;
  volatile boolean stallAcquire;
  volatile boolean stallCancel;
  final CountDownLatch unstall = new CountDownLatch(1);
  final ConcurrentLinkedQueue<Duration> acquireBounds = new ConcurrentLinkedQueue<>();

  StallingBackend(LockBackend delegate) {
    this.delegate = delegate;
  }

  /** Blocks like a call to a frozen server: until unstalled, or past the engine's bound. */
  private void stall(String what) {
    Duration bound = CallTimeout.bound(OWN_TIMEOUT);
    try {
      if (!unstall.await(bound.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new BackendUnavailableException("stalled " + what + " got no reply within " + bound);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BackendUnavailableException("interrupted during a stalled " + what);
    }
  }

  @Override
  public void start(BackendContext context) {
    delegate.start(context);
  }

  @Override
  public Attempt tryAcquire(LockRequest request) {
    acquireBounds.add(CallTimeout.bound(OWN_TIMEOUT));
    if (stallAcquire) {
      stall("acquire");
    }
    return delegate.tryAcquire(request);
  }

  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    return delegate.renew(grants, leaseTime);
  }

  @Override
  public boolean release(Grant grant) {
    return delegate.release(grant);
  }

  @Override
  public void cancel(String name, String owner) {
    if (stallCancel) {
      stall("cancel");
    }
    delegate.cancel(name, owner);
  }

  @Override
  public Optional<LockInfo> inspect(String name) {
    return delegate.inspect(name);
  }

  @Override
  public String describe() {
    return "stalling(" + delegate.describe() + ")";
  }

  @Override
  public void close() {
    unstall.countDown();
    delegate.close();
  }
}
