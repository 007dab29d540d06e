package dev.dlock.spi;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A capability of a {@link LockBackend} that can pass an exclusive grant straight to another owner
 * of the same client. A backend without it is released on unlock, and the next local thread
 * competes at the server like any other.
 */
public interface HandsOff {

  /**
   * Passes the exclusive grant {@code grant} to {@code owner}, another owner of this client, in
   * one step: the lock is never free in between, and the new grant gets a new fencing token,
   * higher than {@code grant}'s and, like every token, lower than that of any grant made after it,
   * including grants to waiters that queued before the hand-off. The engine calls it on release
   * when a thread of this client is waiting for the same lock, at most a few times in a row, so
   * that other clients are not starved. Only called for grants of kind {@link LockKind#EXCLUSIVE}.
   *
   * @param grant     the grant being released
   * @param owner     the owner that takes it; it has no place in the backend's queue
   * @param leaseTime the lease of the new grant
   * @return the new grant; "held" if {@code grant} was no longer held; or null to decline (for
   *         example after too many hand-offs in a row, or when the backend's current settings
   *         forbid hand-offs), and the engine then releases {@code grant}. Nothing changes unless
   *         the new grant is returned.
   */
  @Nullable Attempt handOff(Grant grant, String owner, Duration leaseTime);
}
