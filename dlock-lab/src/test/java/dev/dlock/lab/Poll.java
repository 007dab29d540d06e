package dev.dlock.lab;

import java.time.Duration;
import java.util.concurrent.Callable;

/** Polls a real state with a deadline: the tests' only way to wait. */
final class Poll {
  private Poll() {}

  /** Calls {@code probe} every 20 ms until it returns without throwing; its value. */
  static <T> T until(Duration patience, Callable<T> probe) throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      try {
        return probe.call();
      } catch (Exception e) {
        if (System.nanoTime() - deadline > 0) {
          throw new AssertionError("still failing after " + patience + ": " + e, e);
        }
      }
      Thread.sleep(20);
    }
  }
}
