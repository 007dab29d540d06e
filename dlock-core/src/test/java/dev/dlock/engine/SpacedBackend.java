package dev.dlock.engine;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.SpareTokens;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A real backend (the in-memory one) whose tokens are its own times 16, so that 15 are really left
 * spare after each grant, as {@link SpareTokens} promises; it counts the calls the engine makes and
 * can report a grant lost, as a backend whose session expired would.
 */
class SpacedBackend implements LockBackend, SpareTokens {
  private final LockBackend delegate;
  private final AtomicReference<BackendContext> context = new AtomicReference<>();
  final AtomicInteger acquires = new AtomicInteger();
  final AtomicInteger granted = new AtomicInteger();
  final AtomicInteger releases = new AtomicInteger();

  SpacedBackend(LockBackend delegate) {
    this.delegate = delegate;
  }

  /** Tells the engine the backend lost {@code grant}, as the backend knows it. */
  void reportLost(Grant grant) {
    context.get().lost(grant, "the test's backend lost it");
  }

  @Override
  public int spareTokens() {
    return 15;
  }

  @Override
  public void start(BackendContext ctx) {
    context.set(ctx);
    delegate.start(new BackendContext() {
      @Override
      public String clientId() {
        return ctx.clientId();
      }

      @Override
      public Ticker ticker() {
        return ctx.ticker();
      }

      @Override
      public void released(String name) {
        ctx.released(name);
      }

      @Override
      public void reconnected(String why) {
        ctx.reconnected(why);
      }

      @Override
      public void lost(Grant grant, String reason) {
        ctx.lost(up(grant), reason);
      }
    });
  }

  @Override
  public Attempt tryAcquire(LockRequest request) {
    acquires.incrementAndGet();
    Attempt a = delegate.tryAcquire(request);
    if (!a.isGranted()) {
      return a;
    }
    granted.incrementAndGet();
    return a.validity().map(v -> Attempt.granted(a.token() * 16, v)).orElseGet(() -> Attempt.granted(a.token() * 16));
  }

  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    Set<Grant> gone = new HashSet<>();
    for (Grant g : delegate.renew(grants.stream().map(SpacedBackend::down).toList(), leaseTime)) {
      gone.add(up(g));
    }
    return gone;
  }

  @Override
  public boolean release(Grant grant) {
    releases.incrementAndGet();
    return delegate.release(down(grant));
  }

  @Override
  public void cancel(String name, String owner) {
    delegate.cancel(name, owner);
  }

  @Override
  public String describe() {
    return "spaced(" + delegate.describe() + ")";
  }

  @Override
  public void close() {
    delegate.close();
  }

  private static Grant down(Grant g) {
    if (g.token() % 16 != 0) {
      throw new IllegalArgumentException("the engine sent a turn's token, not the backend's: " + g);
    }
    return new Grant(g.name(), g.owner(), g.token() / 16, g.kind());
  }

  private static Grant up(Grant g) {
    return new Grant(g.name(), g.owner(), g.token() * 16, g.kind());
  }
}
