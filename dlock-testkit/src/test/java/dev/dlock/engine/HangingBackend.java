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
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The in-memory backend, recording what the engine asks of it, with a renewal that can hang as a
 * call to a frozen server does: it blocks its thread in earnest, past any bound the engine gave
 * it, until the backend is closed. Everything else is the real backend.
 */
final class HangingBackend implements LockBackend {
  private static final Duration OWN_TIMEOUT = Duration.ofSeconds(30);
  final LockBackend delegate;
  volatile boolean hangRenewals;
  final CountDownLatch renewHung = new CountDownLatch(1);
  private final CountDownLatch letGo = new CountDownLatch(1);
  /** The bound the engine gave each renewal call, in real time. */
  final List<Duration> renewBounds = new CopyOnWriteArrayList<>();
  /** The lease each renewal call asked for. */
  final List<Duration> renewLeases = new CopyOnWriteArrayList<>();
  /** The grants released at the server. */
  final LinkedBlockingQueue<Grant> released = new LinkedBlockingQueue<>();
  volatile BackendContext context;
  /** The session lease to claim, if any. */
  volatile Duration sessionLease;
  /** How long the server says a grant stays valid, if less than the lease: a grant found late. */
  volatile Duration shortGrant;

  HangingBackend(LockBackend delegate) {
    this.delegate = delegate;
  }

  @Override
  public void start(BackendContext context) {
    this.context = context;
    delegate.start(context);
  }

  @Override
  public Attempt tryAcquire(LockRequest request) {
    Attempt attempt = delegate.tryAcquire(request);
    Duration validity = shortGrant;
    return validity != null && attempt.isGranted() ? Attempt.granted(attempt.token(), validity) : attempt;
  }

  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    renewBounds.add(CallTimeout.bound(OWN_TIMEOUT));
    renewLeases.add(leaseTime);
    if (hangRenewals) {
      renewHung.countDown();
      hang();
    }
    return delegate.renew(grants, leaseTime);
  }

  // A minute is only a safety net for a test that forgets to close its client.
  private void hang() {
    try {
      if (!letGo.await(1, TimeUnit.MINUTES)) {
        throw new BackendUnavailableException("a hung renewal was never let go");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BackendUnavailableException("interrupted during a hung renewal");
    }
  }

  @Override
  public boolean release(Grant grant) {
    boolean done = delegate.release(grant);
    released.add(grant);
    return done;
  }

  @Override
  public void cancel(String name, String owner) {
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
    return "hanging(" + delegate.describe() + ")";
  }

  @Override
  public void close() {
    letGo.countDown();
    delegate.close();
  }
}
