package dev.dlock.engine;

import dev.dlock.HeldLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.NotOwnerException;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;

/**
 * One holder's turn on a grant from the backend: the token, the validity on the client's ticker,
 * the reentrant hold count and the loss signal. All lease handles and Lock-view holds of one turn
 * share it. {@code grant} is the backend's grant, what renew and release send; {@code token} is what
 * the user sees. They differ after a hand-off within the client on a backend with spare tokens
 * ({@link dev.dlock.spi.SpareTokens}): the backend grant stays, and each turn after it gets the
 * next token ({@code handOffs} counts them), with the old turn's validity; the old turn then points
 * at the new one ({@link #passTo}), so a renewal or loss that answers late for the old turn still
 * reaches the current one. Its small state machine (held, lost, ended) is guarded by its monitor,
 * never while doing I/O; validity is volatile because the renewal thread moves it.
 */
final class Hold {
  private final EngineContext ctx;
  private final Renewer renewer;
  final NameState state;
  /** The grant as the backend knows it. */
  final Grant grant;
  /** The fencing token the user sees: the grant's, plus {@code handOffs}. */
  final long token;
  /** Hand-offs within the client in a row since the backend made {@code grant}. */
  final int handOffs;
  final Spec spec;
  final Thread thread;
  final boolean renewed;
  final long acquiredAt;
  /** For a fixed lease, the end no renewal moves; unused for a renewed hold. */
  final long fixedEnd;
  final CompletableFuture<LeaseLostException> lostSignal = new CompletableFuture<>();
  volatile long validUntil;
  volatile @Nullable ScheduledFuture<?> expiryCheck;
  /** The turn this one was handed to within the client, if any. */
  private volatile @Nullable Hold next;

  private int count = 1;
  private int handles;
  private boolean ended;
  private @Nullable LeaseLostException lostReason;

  Hold(EngineContext ctx, Renewer renewer, NameState state, Grant grant, Spec spec, long acquiredAt,
      long validUntil, long fixedEnd) {
    this(ctx, renewer, state, grant, 0, spec, acquiredAt, validUntil, fixedEnd);
  }

  /** A turn {@code handOffs} hand-offs after the backend's grant. */
  Hold(EngineContext ctx, Renewer renewer, NameState state, Grant grant, int handOffs, Spec spec,
      long acquiredAt, long validUntil, long fixedEnd) {
    this.ctx = ctx;
    this.renewer = renewer;
    this.state = state;
    this.grant = grant;
    this.handOffs = handOffs;
    this.token = grant.token() + handOffs;
    this.spec = spec;
    this.thread = Thread.currentThread();
    this.renewed = spec.renew();
    this.acquiredAt = acquiredAt;
    this.fixedEnd = fixedEnd;
    this.validUntil = renewed ? validUntil : Math.min(validUntil, fixedEnd);
  }

  String name() {
    return grant.name();
  }

  /** Reentry by the owning thread. False if the hold already ended; throws if it was lost. */
  synchronized boolean reenter() {
    if (ended) {
      return false;
    }
    if (lostReason != null) {
      throw copyOfLoss();
    }
    count++;
    return true;
  }

  /** A {@link Lease} handle on this hold was opened. */
  synchronized void handleOpened() {
    handles++;
  }

  /** A {@link Lease} handle on this hold was closed. */
  synchronized void handleClosed() {
    handles--;
  }

  /**
   * True for a hold taken only through the {@code Lock} methods (no open lease handle) whose
   * thread has ended: nobody is left who could unlock it.
   */
  synchronized boolean ownerThreadEnded() {
    return !ended && handles == 0 && !thread.isAlive();
  }

  /** What {@link LockClient#held()} shows of this hold at {@code now}; null once ended or lost. */
  synchronized @Nullable HeldLock snapshot(long now) {
    if (ended || lostReason != null) {
      return null;
    }
    long left = validUntil - now;
    return new HeldLock(name(), grant.kind(), token, Duration.ofNanos(Math.max(0, left)), count,
        handles > 0 ? HeldLock.HANDLE : thread.getName());
  }

  synchronized int count() {
    return ended ? 0 : count;
  }

  /**
   * Drops one hold and returns how many remain: 0 means the caller must release at the backend;
   * -1 means the hold had already ended and nothing was dropped.
   */
  synchronized int exitOne() {
    if (ended) {
      return -1;
    }
    if (--count == 0) {
      ended = true;
    }
    return count;
  }

  /** Ends the hold whatever its count (client close). False if it had ended already. */
  synchronized boolean endAll() {
    if (ended) {
      return false;
    }
    ended = true;
    return true;
  }

  synchronized boolean isEnded() {
    return ended;
  }

  /** The loss, if the hold was lost while held. */
  synchronized @Nullable LeaseLostException loss() {
    return lostReason;
  }

  /**
   * Records the loss and fires the signal, once, unless the hold was released normally first.
   * True if this call recorded it.
   */
  boolean markLost(LeaseLostException reason, boolean evenIfEnded) {
    synchronized (this) {
      if (lostReason != null || (ended && !evenIfEnded)) {
        return false;
      }
      lostReason = reason;
    }
    ScheduledFuture<?> check = expiryCheck;
    if (check != null) {
      check.cancel(false);
    }
    ctx.events.lost(name(), token, reason);
    lostSignal.complete(reason);
    return true;
  }

  /** The backend says this owner no longer holds the grant. */
  @SuppressWarnings("NullAway") // dlock builds every loss with a message
  void markGone(LockBackend backend) {
    Hold n = next;
    if (n != null) {
      n.markGone(backend);
    }
    markLost(new NotOwnerException(lostException("the backend reports it no longer held by"
        + " this owner (" + backend.describe() + ")").getMessage()), false);
  }

  /**
   * Makes {@code to}, the next turn on the same backend grant, the one that later renewals and
   * losses of this turn reach, and gives it this turn's validity, read after the link is set so
   * that a renewal that lands meanwhile is not missed.
   */
  void passTo(Hold to) {
    next = to;
    to.extendTo(validUntil);
  }

  /** Moves validity forward after a renewal, never backward, and never past a fixed lease's end. */
  void extendTo(long newValidUntil) {
    Hold n = next;
    if (n != null) {
      n.extendTo(newValidUntil);
    }
    if (loss() != null) {
      return; // a renewal that answered after the deadline does not bring a lost lease back
    }
    if (!renewed && newValidUntil - fixedEnd > 0) {
      newValidUntil = fixedEnd;
    }
    if (newValidUntil - validUntil > 0) {
      validUntil = newValidUntil;
    }
  }

  boolean isValid() {
    if (isEnded() || loss() != null) {
      return false;
    }
    return !checkExpiry();
  }

  /**
   * Marks the hold lost if its deadline has passed; true if it has. The grant is then released at
   * the server, so a lock whose server keeps it (a renewal that hung yet arrived, a ZooKeeper node)
   * is not held by nobody until it expires there.
   */
  boolean checkExpiry() {
    long now = ctx.ticker.read();
    if (now - validUntil < 0) {
      return false;
    }
    if (markLost(lostException(
        (renewed ? "the lease ran out before a renewal succeeded" : "the lease ran out")
            + renewalFailureSuffix()), false)) {
      ctx.releaseLost(grant);
    }
    return true;
  }

  /** Nanos left on the lease by the client's ticker; negative once past. */
  long nanosLeft() {
    return validUntil - ctx.ticker.read();
  }

  LeaseLostException lostException(String why) {
    return new LeaseLostException(String.format(
        "lease on lock '%s' (token %d, owner %s) was lost %s after it was granted: %s",
        name(), token, grant.owner(), Durations.formatNanos(ctx.ticker.read() - acquiredAt), why),
        renewer.lastFailure());
  }

  private String renewalFailureSuffix() {
    RuntimeException failure = renewer.lastFailure();
    return failure == null ? "" : "; the last renewal failed: " + failure.getMessage();
  }

  void ensureValid() {
    if (!isValid()) {
      LeaseLostException loss = loss();
      if (loss != null) {
        throw copyOfLoss();
      }
      throw new LeaseLostException(String.format("lease on lock '%s' (token %d, owner %s) was released",
          name(), token, grant.owner()));
    }
  }

  /** A fresh exception for this throw site, the recorded loss as its cause. */
  @SuppressWarnings("NullAway") // called only once lost, and every loss has a message
  synchronized LeaseLostException copyOfLoss() {
    LeaseLostException e = lostReason instanceof NotOwnerException
        ? new NotOwnerException(lostReason.getMessage())
        : new LeaseLostException(lostReason.getMessage());
    e.initCause(lostReason);
    return e;
  }
}
