package dev.dlock.bench.targets;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The floor: one {@link ReentrantLock} per key in this JVM. Clients do not exist here, so every
 * client gets the same lock for a key; no distributed lock can beat this.
 */
public final class ReentrantLockTarget implements Target {
  static final String NAME = "reentrant";

  private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void setUp(int clients) {
    locks.clear();
  }

  @Override
  public Lock lock(int client, String key) {
    return locks.computeIfAbsent(key, k -> new ReentrantLock());
  }

  @Override
  public void awaitWaiter(String key) {
    ReentrantLock lock = locks.get(key);
    long deadline = System.nanoTime() + WAITER_TIMEOUT.toNanos();
    for (int spins = 0; lock == null || !lock.hasQueuedThreads(); spins++) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("no thread queued on '" + key + "' after " + WAITER_TIMEOUT);
      }
      // Spin a little, then yield: on a busy machine a pure spin can hold the very core the
      // waiter needs to get into the queue, stalling for a whole time slice.
      if (spins < 100) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
      lock = lock != null ? lock : locks.get(key);
    }
  }

  @Override
  public void tearDown() {
    locks.clear();
  }
}
