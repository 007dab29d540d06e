package dev.dlock.spi;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One try to grant a lock of any kind, the argument of {@link LockBackend#tryAcquire(LockRequest)}.
 *
 * @param name      the lock name, already validated by the engine
 * @param kind      what the grant excludes
 * @param permits   for {@link LockKind#PERMIT}, how many grants of the name may be held at once
 *                  (every client of the name must agree); 1 for the other kinds
 * @param owner     unique per grant; the same for every retry of one waiting acquire
 * @param leaseTime how long the server keeps the grant without renewal
 * @param willWait  true when the caller will wait and retry on "held"; the backend may then queue
 *                  the owner and notify it on release. False for a one-shot try, which must leave
 *                  nothing behind.
 * @param writer    for a {@link LockKind#READ} request, the owner of the write grant the same thread
 *                  holds on the name (a downgrade: grant the read despite that writer); else null
 */
public record LockRequest(String name, LockKind kind, int permits, String owner,
    Duration leaseTime, boolean willWait, @Nullable String writer) {

  /** Checks the fields. */
  public LockRequest {
    requireNonNull(name, "name");
    requireNonNull(kind, "kind");
    requireNonNull(owner, "owner");
    requireNonNull(leaseTime, "leaseTime");
    if (permits < 1) {
      throw new IllegalArgumentException("permits must be positive: " + permits);
    }
  }

  /** An exclusive request, the commonest kind: one permit, no writer. */
  public static LockRequest exclusive(String name, String owner, Duration leaseTime, boolean willWait) {
    return new LockRequest(name, LockKind.EXCLUSIVE, 1, owner, leaseTime, willWait, null);
  }
}
