package dev.dlock.bench.targets;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One {@link ReentrantLock} per key in this JVM. Clients do not exist here, so every client gets
 * the same lock for a key.
 *
 * <p>Unfair ({@value #NAME}), it is the baseline no distributed lock can beat: a releasing thread
 * takes the lock straight back while the woken one is still getting up. Fair
 * ({@value Targets#HANDOFF_FLOOR}), it is the floor of W2-1c: the least a lock that queues its
 * threads in FIFO order (dlock's engine does, so that no thread of a client starves) spends on
 * passing the lock to the next thread of the same process, one park and one unpark a cycle, with
 * no server.
 */
public final class ReentrantLockTarget implements Target {
  static final String NAME = "reentrant";

  /** The legend's line for the hand-off floor. */
  static final String LEGEND = Targets.HANDOFF_FLOOR + ": the W2-1c floor, a fair java.util.concurrent"
      + " ReentrantLock per key: sixteen threads of one process passing the lock on in FIFO order, one"
      + " park and one unpark a cycle and no server; it runs in W2-1c only, and every W2-1c row's"
      + " \"of floor\" is its ops/s over this.";

  private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();
  private final boolean fair;

  private ReentrantLockTarget(boolean fair) {
    this.fair = fair;
  }

  /** The unfair baseline. */
  static ReentrantLockTarget unfair() {
    return new ReentrantLockTarget(false);
  }

  /** The fair floor of W2-1c. */
  static ReentrantLockTarget handoffFloor() {
    return new ReentrantLockTarget(true);
  }

  @Override
  public String name() {
    return fair ? Targets.HANDOFF_FLOOR : NAME;
  }

  @Override
  public void setUp(int clients) {
    locks.clear();
  }

  @Override
  public Lock lock(int client, String key) {
    return locks.computeIfAbsent(key, k -> new ReentrantLock(fair));
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
