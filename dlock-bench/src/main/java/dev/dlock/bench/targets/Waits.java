package dev.dlock.bench.targets;

import dev.dlock.LockListener;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Tells a target's {@link Target#awaitWaiter} that a client began to wait: a listener that counts
 * {@code waited} events per lock name, one permit per acquire that found the lock held. dlock's
 * targets get the events from their clients; the polling peers report each failed try.
 */
final class Waits implements LockListener {
  private final ConcurrentHashMap<String, Semaphore> waits = new ConcurrentHashMap<>();

  @Override
  public void waited(String name) {
    of(name).release();
  }

  /** Takes one waiter of {@code key}, waiting up to {@link Target#WAITER_TIMEOUT} for it. */
  void await(String key) throws InterruptedException {
    if (!of(key).tryAcquire(Target.WAITER_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)) {
      throw new IllegalStateException("no client waited for '" + key + "' within " + Target.WAITER_TIMEOUT);
    }
    // W4 has one waiter at a time: further permits are more failed tries of the same wait (a
    // poller reports each), and left in place they would end the next wait before it began.
    of(key).drainPermits();
  }

  void clear() {
    waits.clear();
  }

  private Semaphore of(String key) {
    return waits.computeIfAbsent(key, k -> new Semaphore(0));
  }
}
