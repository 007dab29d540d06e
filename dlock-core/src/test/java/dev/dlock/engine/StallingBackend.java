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
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The in-memory backend with calls that can hang, as calls to a frozen server do: a stalled call
 * blocks in earnest until the test lets it go (or its CallTimeout bound passes, as a real client's
 * timeout would), and every call records the bound the engine gave it. Everything else is the real
 * backend.
 */
class StallingBackend implements LockBackend {
  private static final Duration OWN_TIMEOUT = Duration.ofSeconds(30);
  final LockBackend delegate;
  volatile boolean stallRenew;
  volatile boolean stallAcquire;
  volatile boolean stallCancel;
  volatile boolean ignoreBound;
  /** How many releases to fail before they go through. */
  final AtomicInteger failReleases = new AtomicInteger();
  final CountDownLatch unstall = new CountDownLatch(1);
  final CountDownLatch renewStalled = new CountDownLatch(1);
  final ConcurrentLinkedQueue<Duration> acquireBounds = new ConcurrentLinkedQueue<>();
  final ConcurrentLinkedQueue<Duration> renewBounds = new ConcurrentLinkedQueue<>();
  final LinkedBlockingQueue<Grant> released = new LinkedBlockingQueue<>();
  final LinkedBlockingQueue<Duration> renewLeases = new LinkedBlockingQueue<>();
  volatile BackendContext context;
  /** The session lease to claim, if any. */
  volatile Duration sessionLease;
  /** How long the server says a grant stays valid, if less than the lease: a grant found late. */
  volatile Duration shortGrant;

  StallingBackend(LockBackend delegate) {
    this.delegate = delegate;
  }

  /**
   * Blocks like a call to a frozen server: until unstalled, or past the engine's bound, or with
   * {@code ignoreBound} past its own timeout only, as a client whose timer is late would.
   */
  private void stall(String what) {
    Duration bound = ignoreBound ? OWN_TIMEOUT : CallTimeout.bound(OWN_TIMEOUT);
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
    this.context = context;
    delegate.start(context);
  }

  @Override
  public Attempt tryAcquire(LockRequest request) {
    acquireBounds.add(CallTimeout.bound(OWN_TIMEOUT));
    if (stallAcquire) {
      stall("acquire");
    }
    Attempt attempt = delegate.tryAcquire(request);
    Duration validity = shortGrant;
    return validity != null && attempt.isGranted() ? Attempt.granted(attempt.token(), validity) : attempt;
  }

  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    renewBounds.add(CallTimeout.bound(OWN_TIMEOUT));
    renewLeases.add(leaseTime);
    if (stallRenew) {
      renewStalled.countDown();
      stall("renew");
    }
    return delegate.renew(grants, leaseTime);
  }

  @Override
  public boolean release(Grant grant) {
    if (failReleases.getAndDecrement() > 0) {
      throw new BackendUnavailableException("release of " + grant + " refused: the server is away");
    }
    released.add(grant);
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
  public Optional<Duration> sessionLease() {
    return Optional.ofNullable(sessionLease);
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
