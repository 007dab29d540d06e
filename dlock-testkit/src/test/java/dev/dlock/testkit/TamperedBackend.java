package dev.dlock.testkit;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A real backend with one deliberate fault, to show that the suite catches it. With
 * {@link Fault#NONE} it forwards everything unchanged.
 */
final class TamperedBackend implements LockBackend {

  enum Fault {
    NONE,
    /** Release notifications never reach the waiting client. */
    SILENT_RELEASES,
    /** Every grant's token is lower than the one before. */
    DESCENDING_TOKENS,
    /** Renewal reports success but extends nothing. */
    IGNORED_RENEWALS,
    /** A waiter that gives up keeps its place in the server's queue. */
    IGNORED_CANCELS,
    /** Grants expire at once at the server, and releases claim success anyway. */
    INSTANT_EXPIRY
  }

  private static final long MIRROR = 1_000_000_000L;

  private final LockBackend delegate;
  private final Fault fault;

  TamperedBackend(LockBackend delegate, Fault fault) {
    this.delegate = delegate;
    this.fault = fault;
  }

  @Override
  public void start(BackendContext context) {
    if (fault != Fault.SILENT_RELEASES) {
      delegate.start(context);
      return;
    }
    delegate.start(new BackendContext() {
      @Override
      public String clientId() {
        return context.clientId();
      }

      @Override
      public Ticker ticker() {
        return context.ticker();
      }

      @Override
      public void released(String name) {
        // dropped
      }

      @Override
      public void lost(Grant grant, String reason) {
        context.lost(grant, reason);
      }
    });
  }

  private Grant real(Grant g) {
    return fault == Fault.DESCENDING_TOKENS ? new Grant(g.name(), g.owner(), MIRROR - g.token()) : g;
  }

  @Override
  public Attempt tryAcquire(LockRequest request) {
    if (fault == Fault.INSTANT_EXPIRY) {
      request = new LockRequest(request.name(), request.kind(), request.permits(), request.owner(),
          Duration.ofNanos(1), request.willWait(), request.writer());
    }
    Attempt a = delegate.tryAcquire(request);
    if (fault == Fault.DESCENDING_TOKENS && a.isGranted()) {
      return Attempt.granted(MIRROR - a.token());
    }
    return a;
  }

  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    if (fault == Fault.IGNORED_RENEWALS || fault == Fault.INSTANT_EXPIRY) {
      return Set.of();
    }
    List<Grant> real = grants.stream().map(this::real).toList();
    Set<Grant> gone = new HashSet<>();
    for (Grant g : delegate.renew(real, leaseTime)) {
      gone.add(real(g));
    }
    return gone;
  }

  @Override
  public boolean release(Grant grant) {
    boolean released = delegate.release(real(grant));
    return fault == Fault.INSTANT_EXPIRY || released;
  }

  @Override
  public void cancel(String name, String owner) {
    if (fault != Fault.IGNORED_CANCELS) {
      delegate.cancel(name, owner);
    }
  }

  @Override
  public int maxNameLength() {
    return delegate.maxNameLength();
  }

  @Override
  public String describe() {
    return delegate.describe() + " with " + fault;
  }

  @Override
  public void close() {
    delegate.close();
  }
}
