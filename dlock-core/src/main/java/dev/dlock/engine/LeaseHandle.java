package dev.dlock.engine;

import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Lease}: one hold on a shared {@link Hold}. Closing it drops exactly that hold, once, from
 * whatever thread closes it.
 */
final class LeaseHandle implements Lease {
  private final Hold hold;
  private final Release release;
  private final AtomicBoolean closed = new AtomicBoolean();

  LeaseHandle(Hold hold, Release release) {
    this.hold = hold;
    this.release = release;
    hold.handleOpened();
  }

  @Override
  public String name() {
    return hold.name();
  }

  @Override
  public long token() {
    return hold.token;
  }

  @Override
  public long validUntilNanos() {
    return hold.validUntil;
  }

  @Override
  public Duration remaining() {
    long left = hold.nanosLeft();
    return isValid() && left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
  }

  @Override
  public boolean isValid() {
    return !closed.get() && hold.isValid();
  }

  @Override
  public void ensureValid() {
    if (closed.get()) {
      throw new LeaseLostException("lease on lock '" + name() + "' was closed by its holder");
    }
    hold.ensureValid();
  }

  @Override
  public CompletionStage<LeaseLostException> lost() {
    return hold.lostSignal.minimalCompletionStage();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      hold.handleClosed();
      release.releaseOne(hold);
    }
  }

  @Override
  public String toString() {
    return "Lease[" + name() + ", token=" + token() + ", owner=" + hold.grant.owner() + "]";
  }
}
