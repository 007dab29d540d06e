package dev.dlock.bench.targets;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A floor target's "lock": one round trip to take the key, one to give it back, and nothing else:
 * no waiting, no renewal, no local state. {@link #lock()} on a held key tries again at once, one
 * round trip a try, and does not queue: the floors run in W1, where no other thread takes the key,
 * and in W3, where 16 threads on 1,024 keys rarely meet, so the row is the most a lock of two round
 * trips a cycle can do on that server with 16 threads.
 */
final class FloorLock implements Lock {
  /** One round trip to the server; true if it took (or gave back) the key. */
  @FunctionalInterface
  interface Call {
    boolean run() throws Exception;
  }

  private final String target;
  private final String key;
  private final Call acquire;
  private final Call release;

  FloorLock(String target, String key, Call acquire, Call release) {
    this.target = target;
    this.key = key;
    this.acquire = acquire;
    this.release = release;
  }

  @Override
  public boolean tryLock() {
    return call(acquire, "acquire");
  }

  @Override
  public void lock() {
    while (!tryLock()) {
      Thread.onSpinWait(); // the key is held by another thread: rare in W3, never in W1
    }
  }

  @Override
  public void lockInterruptibly() {
    lock();
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) {
    return tryLock();
  }

  @Override
  public void unlock() {
    if (!call(release, "release")) {
      throw new IllegalMonitorStateException(target + " did not hold '" + key + "'");
    }
  }

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException(target + " has no conditions");
  }

  private boolean call(Call call, String what) {
    try {
      return call.run();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(target + " failed to " + what + " '" + key + "'", e);
    }
  }
}
