package dev.dlock.engine;

import dev.dlock.LeaseLostException;
import dev.dlock.LockException;
import dev.dlock.NotOwnerException;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.HandsOff;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.SpareTokens;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The release path, the twin of {@link Acquisition}: drops one hold, and after the last one either
 * hands the grant to a thread of this client queued for it or releases it at the backend; then
 * tells the listeners, and the holder if the lease had been lost meanwhile. A hand-off costs no
 * backend call where the backend leaves tokens spare ({@link SpareTokens}): the grant stays the
 * backend's, and the next holder gets the next spare token; else one call ({@link HandsOff})
 * instead of a release, a notification and an acquire.
 */
final class Release {
  private static final Logger log = LoggerFactory.getLogger(Release.class);

  private final EngineContext ctx;
  private final Renewer renewer;
  private final @Nullable HandsOff handsOff;
  private final int spareTokens;

  /**
   * {@code handsOff}: the backend's hand-off, or null if it has none; {@code spareTokens}: the
   * tokens the backend leaves spare after an exclusive grant, 0 if none (then {@code handsOff} is
   * used).
   */
  Release(EngineContext ctx, Renewer renewer, @Nullable HandsOff handsOff, int spareTokens) {
    this.ctx = ctx;
    this.renewer = renewer;
    this.handsOff = handsOff;
    this.spareTokens = spareTokens;
  }

  /** Drops one hold; releases at the backend after the last. False if the hold had ended. */
  boolean releaseOne(Hold h) {
    int left = h.exitOne();
    if (left < 0) {
      return false;
    }
    if (left == 0) {
      finish(h);
    }
    return true;
  }

  /** The Lock view's unlock: the current thread's hold, or IllegalMonitorStateException. */
  void unlock(Spec spec) {
    Hold h = ctx.names.heldByCurrentThread(spec);
    if (h == null || !releaseOne(h)) {
      if (ctx.names.isClosed()) {
        throw ctx.names.closedException(spec.name());
      }
      throw new IllegalMonitorStateException(String.format("lock '%s' is not held by thread '%s' (client %s)",
          spec.name(), Thread.currentThread().getName(), ctx.clientId));
    }
  }

  /** A thread-owned hold whose thread ended without unlocking: released as that thread would have. */
  void abandoned(Hold h) {
    if (!h.endAll()) {
      return;
    }
    ctx.events.abandoned(h.name(), h.token, h.thread.getName());
    try {
      finish(h);
    } catch (LockException e) {
      log.warn("dlock: releasing lock '{}' abandoned by thread '{}' failed", h.name(), h.thread.getName(), e);
    }
  }

  private void finish(Hold h) {
    NameState st = h.state;
    st.remove(h);
    renewer.remove(h);
    LeaseLostException loss = h.loss();
    boolean released;
    try {
      HandsOff to = handsOff;
      boolean exclusive = loss == null && h.grant.kind() == LockKind.EXCLUSIVE;
      if (exclusive && h.handOffs < spareTokens && h.nanosLeft() > 0
          && st.reserveHandOff(h.spec, Math.min(NameState.MAX_STREAK, spareTokens))) {
        released = handOffLocally(h);
      } else if (exclusive && to != null && spareTokens == 0
          && st.reserveHandOff(h.spec, NameState.MAX_STREAK)) {
        released = handOff(h, to);
      } else {
        released = releaseAtBackend(h);
      }
    } finally {
      ctx.names.exit(st);
    }
    Duration held = Duration.ofNanos(ctx.ticker.read() - h.acquiredAt);
    if (released) {
      ctx.events.released(h.name(), h.token, held);
    }
    if (loss != null) {
      throw h.copyOfLoss();
    }
    if (!released) {
      NotOwnerException e = new NotOwnerException(String.format(
          "lock '%s' was no longer held by %s (token %d) at release after %s: it expired or another owner"
              + " took it (backend %s)", h.name(), h.grant.owner(), h.token,
          Durations.format(held), ctx.backend.describe()));
      h.markLost(e, true);
      throw e;
    }
  }

  private boolean releaseAtBackend(Hold h) {
    h.state.resetStreak();
    return ctx.calls.call(h.name(), "release", () -> ctx.backend.release(h.grant));
  }

  /**
   * Passes the grant to a thread of this client queued for it, as a new grant with a higher token.
   * False if the grant was no longer held.
   */
  private boolean handOff(Hold h, HandsOff handsOff) {
    NameState st = h.state;
    String owner = ctx.names.newOwner();
    long sentAt = ctx.ticker.read();
    Attempt a;
    try {
      a = ctx.calls.call(h.name(), "hand over", () -> handsOff.handOff(h.grant, owner, h.spec.lease()));
    } catch (RuntimeException e) {
      st.cancelHandOff();
      log.debug("dlock: handing lock '{}' over failed; releasing it instead", h.name(), e);
      return releaseAtBackend(h); // whatever state the failure left, a release clears it
    }
    if (a == null) {
      st.cancelHandOff();
      return releaseAtBackend(h);
    }
    if (!a.isGranted()) {
      st.cancelHandOff();
      return false;
    }
    NameState.Handed left = st.handOver(
        new NameState.Handed(h.spec, new Grant(h.name(), owner, a.token(), LockKind.EXCLUSIVE), a, sentAt, null));
    if (left != null) {
      ctx.cleanup.releaseNow(left.grant()); // its taker gave up or the client closed meanwhile
    }
    return true;
  }

  /**
   * Passes the grant to a thread of this client queued for it with no backend call: the taker's
   * turn keeps the backend grant and this turn's validity, with the next token. The backend left
   * that token spare, so no other grant gets it. True: the grant is passed on or released.
   */
  private boolean handOffLocally(Hold h) {
    NameState.Handed left = h.state.handOver(new NameState.Handed(h.spec, h.grant, null, ctx.ticker.read(), h));
    if (left != null) {
      return releaseAtBackend(h); // every taker gave up, or the client closed, meanwhile
    }
    return true;
  }
}
