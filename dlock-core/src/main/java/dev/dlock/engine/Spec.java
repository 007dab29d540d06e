package dev.dlock.engine;

import dev.dlock.spi.LockKind;
import java.time.Duration;

/**
 * What a lock view asks of the engine on every call: the name, the kind, the permits of a
 * semaphore, and the lease mode. Why one value: the views stay one line per method, and the key of
 * the engine's per-name state is computed once. An exclusive lock is keyed by its bare name, the
 * cheapest key; the other kinds by a record, so no kind's state can collide with another's.
 */
record Spec(String name, LockKind kind, int permits, Duration lease, boolean renew, Object key) {

  static Spec of(String name, LockKind kind, int permits, Duration lease, boolean renew) {
    return new Spec(name, kind, permits, lease, renew, key(kind, name));
  }

  static Object key(LockKind kind, String name) {
    return kind == LockKind.EXCLUSIVE ? name : new KindKey(kind, name);
  }

  /** The key of a non-exclusive kind's state. */
  record KindKey(LockKind kind, String name) {}
}
