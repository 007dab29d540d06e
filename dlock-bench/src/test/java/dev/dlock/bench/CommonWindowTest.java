package dev.dlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.bench.targets.Target;
import dev.dlock.bench.targets.Targets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The sixteen-thread workloads' ops/s is what all threads completed together, not JMH's sum of
 * each thread's own rate, which an unfair lock inflates. A target that cannot do more than 1,000
 * cycles a second (one mutex for the whole JVM, held 1 ms a cycle, barging) must not measure more.
 */
class CommonWindowTest {
  private static final String BARGING = "test-barging-mutex-1ms";

  @Test
  void anUnfairMutexHeldOneMillisecondMeasuresAtMostAThousandCyclesASecond() throws Exception {
    Targets.registerUnlisted(BARGING, BargingMutex::target);
    Settings s = Settings.parse("-f", "0", "-wi", "0", "-i", "1", "-r", "100ms");

    Row row = JmhWorkloads.run(Workload.W2_1C, BARGING, s);

    // 1,000 is the physical bound; 30% over it for the clock's and the window's edges.
    assertThat(row.opsPerSec()).as("ops/s of %s", row).isGreaterThan(100).isLessThanOrEqualTo(1_300);
    assertThat(row.p50Nanos()).as("p50 of %s", row).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
  }

  /**
   * One mutex for every client and key, held 1 ms by each lock(), that barges by design: once
   * released it stays promised for 1 ms to the thread that held it, which calls lock() again at
   * once, for up to {@value #STREAK} cycles in a row, as a client's local lock keeps its threads
   * ahead of every other waiter. Then it goes to the longest waiter, so each of JMH's sixteen
   * threads has a turn within 16 x 20 ms, and JMH's end of an iteration, which waits for every
   * thread's call to return, waits no longer. A round (320 ms) is longer than the window (100 ms),
   * so most threads, blocked in their first call when JMH starts measuring, enter JMH's measured
   * phase after it ended, complete one fast call, and JMH counts each of them at 1,000 a second:
   * about 9,700 ops/s in all, where the common window counts about 850. (A plain non-fair
   * ReentrantLock took turns here, its woken waiter beating the thread that had just let go.)
   */
  static final class BargingMutex {
    private static final int STREAK = 20;
    private static final long PROMISE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private BargingMutex() {}

    /** A target whose clients all share one barging mutex. */
    static Target target() {
      Lock held = new HeldLock();
      return new OneLockTarget(BARGING, client -> held);
    }

    private static final class HeldLock extends UnusedLockParts {
      private final Deque<Thread> waiters = new ArrayDeque<>(); // all fields guarded by this
      private Thread owner;
      private Thread last;
      private Thread promised;
      private long promisedUntil;
      private int streak;

      @Override
      public void lock() {
        take();
        pauseNanos(TimeUnit.MILLISECONDS.toNanos(1));
      }

      private synchronized void take() {
        Thread me = Thread.currentThread();
        boolean interrupted = false;
        waiters.addLast(me);
        while (owner != null || (promised != null && promised != me && System.nanoTime() - promisedUntil < 0)) {
          try {
            wait(1);
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        waiters.remove(me);
        streak = last == me ? streak + 1 : 1;
        owner = me;
        last = me;
        if (interrupted) {
          me.interrupt();
        }
      }

      @Override
      public synchronized void unlock() {
        owner = null;
        promised = streak < STREAK ? Thread.currentThread() : waiters.peekFirst();
        promisedUntil = System.nanoTime() + PROMISE_NANOS;
        notifyAll();
      }
    }
  }

  private static void pauseNanos(long nanos) {
    long end = System.nanoTime() + nanos;
    for (long left = nanos; left > 0; left = end - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  /** The parts of {@link Lock} the bench never calls. */
  private abstract static class UnusedLockParts implements Lock {
    @Override
    public void lockInterruptibly() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean tryLock() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public java.util.concurrent.locks.Condition newCondition() {
      throw new UnsupportedOperationException();
    }
  }
}
