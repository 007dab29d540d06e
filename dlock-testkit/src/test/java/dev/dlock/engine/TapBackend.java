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
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tap on the in-memory backend: it records what the engine asks of it (renewal bounds, leases
 * and batch sizes, releases), and fails on demand as a server can: renewals refused, or hung as a
 * call to a frozen server is (blocking its thread in earnest, past any bound the engine gave it,
 * until the backend is closed), releases refused, grants found late (short), a session lease
 * claimed. Everything else is the real backend. Public for the testkit's own tests in other
 * packages.
 */
public final class TapBackend implements LockBackend {
  private static final Duration OWN_TIMEOUT = Duration.ofSeconds(30);
  public final LockBackend delegate;
  public volatile boolean hangRenewals;
  public volatile boolean failRenewals;
  /** How many releases to refuse before they go through. */
  public final AtomicInteger failReleases = new AtomicInteger();
  /** How many grants each renewal call carried. */
  public final List<Integer> batches = new CopyOnWriteArrayList<>();
  public final CountDownLatch renewHung = new CountDownLatch(1);
  private final CountDownLatch letGo = new CountDownLatch(1);
  /** The bound the engine gave each renewal call, in real time. */
  public final List<Duration> renewBounds = new CopyOnWriteArrayList<>();
  /** The lease each renewal call asked for. */
  public final List<Duration> renewLeases = new CopyOnWriteArrayList<>();
  /** The grants released at the server. */
  public final LinkedBlockingQueue<Grant> released = new LinkedBlockingQueue<>();
  public volatile BackendContext context;
  /** The session lease to claim, if any. */
  public volatile Duration sessionLease;
  /** How long the server says a grant stays valid, if less than the lease: a grant found late. */
  public volatile Duration shortGrant;

  public TapBackend(LockBackend delegate) {
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
    batches.add(grants.size());
    if (failRenewals) {
      throw new BackendUnavailableException("renewal refused by the test");
    }
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
    if (failReleases.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new BackendUnavailableException("release refused by the test");
    }
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
    return "tap on " + delegate.describe();
  }

  @Override
  public void close() {
    letGo.countDown();
    delegate.close();
  }
}
