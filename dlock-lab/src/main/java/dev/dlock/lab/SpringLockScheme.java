package dev.dlock.lab;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A Spring Integration registry as a lab scheme, its locks taken as its users take them:
 * {@code obtain}, then {@code tryLock} with the wait, then {@code unlock}. Why one class for both
 * registries: the JDBC and the Redis ones differ in their store ({@link SpringJdbcScheme},
 * {@link SpringRedisScheme} wire it), not in how a lock is held or how a release that finds the
 * store's entry gone (expired, taken by another) says so: {@link ConcurrentModificationException}.
 */
final class SpringLockScheme implements Scheme {
  private final String id;
  private final LockRegistry registry;
  private final String process;
  private final Duration lease;
  private final AutoCloseable store;

  /**
   * Scheme {@code id}: the locks of {@code registry}, configured with {@code lease}, taken as
   * {@code process}; closing closes {@code store}, what the registry runs on.
   */
  SpringLockScheme(String id, LockRegistry registry, String process, Duration lease, AutoCloseable store) {
    this.id = id;
    this.registry = registry;
    this.process = process;
    this.lease = lease;
    this.store = store;
  }

  @Override
  public Held acquire(String lock, Duration lease, Duration wait) throws InterruptedException {
    Schemes.checkLease(id, this.lease, lease);
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

  @Override
  public boolean fenced() {
    return false;
  }

  @Override
  public void close() throws Exception {
    store.close();
  }
}
