package dev.dlock.lab;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * One wait of a naive ZooKeeper scheme for the change a watch reports: the first event that is not
 * a connection event calls {@code onWake} and ends the wait; an event after the wait ended is not
 * counted.
 *
 * <p>Why: S11 and S13-naive wait for a change the same way, and {@code onWake} is how the lab
 * counts the herd, so both must count it alike.
 */
final class ChangeWatch implements CuratorWatcher {
  private final CountDownLatch changed = new CountDownLatch(1);
  private final Runnable onWake;

  ChangeWatch(Runnable onWake) {
    this.onWake = onWake;
  }

  @Override
  public void process(WatchedEvent event) {
    if (event.getType() != Watcher.Event.EventType.None && changed.getCount() > 0) {
      onWake.run();
      changed.countDown();
    }
  }

  /**
   * Waits for the change until {@code deadline}, a {@link System#nanoTime} value.
   *
   * @return false, and no later change is counted, if the deadline passed first
   */
  boolean await(long deadline) throws InterruptedException {
    long left = deadline - System.nanoTime();
    if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
      cancel();
      return false;
    }
    return true;
  }

  /** Ends the wait without a change: a later one is not counted. */
  void cancel() {
    changed.countDown();
  }
}
