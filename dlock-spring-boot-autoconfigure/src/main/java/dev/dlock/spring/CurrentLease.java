package dev.dlock.spring;

import dev.dlock.Lease;
import java.util.Optional;

/**
 * The lease of the {@link ScheduledLock} or {@link DistributedLock} method running on this thread,
 * for its fencing token or {@link Lease#ensureValid()} before a commit.
 */
public final class CurrentLease {
  private static final ThreadLocal<Lease> CURRENT = new ThreadLocal<>();

  private CurrentLease() {}

  /** The innermost annotated method's lease on this thread; empty outside such a method. */
  public static Optional<Lease> get() {
    return Optional.ofNullable(CURRENT.get());
  }

  /** Sets the lease for a call and returns the one it hides, to give back to {@link #restore}. */
  static Lease enter(Lease lease) {
    Lease outer = CURRENT.get();
    CURRENT.set(lease);
    return outer;
  }

  static void restore(Lease outer) {
    if (outer == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(outer);
    }
  }
}
