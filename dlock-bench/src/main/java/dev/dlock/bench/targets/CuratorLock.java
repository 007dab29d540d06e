package dev.dlock.bench.targets;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * A Curator {@link InterProcessMutex} seen as a {@link Lock}: each method calls the mutex's own
 * acquire or release once, so the bench measures Curator and nothing added. Curator's checked
 * exceptions become {@link IllegalStateException}s.
 */
final class CuratorLock implements Lock {
  private final InterProcessMutex mutex;

  CuratorLock(InterProcessMutex mutex) {
    this.mutex = mutex;
  }

  @Override
  public void lock() {
    try {
      mutex.acquire();
    } catch (Exception e) {
      throw failure("acquire", e);
    }
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    lock();
    if (Thread.interrupted()) {
      unlock();
      throw new InterruptedException();
    }
  }

  @Override
  public boolean tryLock() {
    try {
      return mutex.acquire(0, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw failure("try", e);
    }
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    try {
      return mutex.acquire(time, unit);
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      throw failure("try", e);
    }
  }

  @Override
  public void unlock() {
    try {
      mutex.release();
    } catch (Exception e) {
      throw failure("release", e);
    }
  }

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException("a Curator mutex has no conditions");
  }

  private IllegalStateException failure(String what, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    return new IllegalStateException("curator failed to " + what + " its mutex: " + e, e);
  }
}
