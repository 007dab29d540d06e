package dev.dlock.lab;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A lock of a Spring Integration registry, taken as its users take it: {@code obtain}, then
 * {@code tryLock} with the wait, then {@code unlock}. Why one place: the JDBC and the Redis
 * registries differ in their store, not in how a lock is held or how a release that finds the
 * store's entry gone (expired, taken by another) says so: {@link ConcurrentModificationException}.
 */
final class SpringLocks {
  private SpringLocks() {}

  /** Takes {@code lock} from {@code registry} as {@code process}; {@code null} when the wait ran out. */
  static Scheme.Held tryLock(LockRegistry registry, String lock, Duration wait, String process)
      throws InterruptedException {
    Lock l = registry.obtain(lock);
    if (!l.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
      return null;
    }
    return new PlainHeld(() -> {
      try {
        l.unlock();
        return process;
      } catch (ConcurrentModificationException e) {
        return ""; // "Lock was released in the store due to expiration"
      }
    });
  }
}
