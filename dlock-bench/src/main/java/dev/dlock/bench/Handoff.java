package dev.dlock.bench;

import dev.dlock.bench.targets.Target;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * W4, handoff latency: two players, on clients 0 and 1, pass one lock back and forth. The holder
 * waits until the other player is blocked in {@code lock()}, reads the clock and unlocks; the
 * other reads the clock as soon as its {@code lock()} returns. The difference is one sample.
 *
 * <p>After a handoff the old holder calls {@code lock()} again only once the new holder has the
 * lock, so it never barges in ahead of the waiter it just woke. JMH has no shape for two threads
 * with opposite roles, so this is a plain loop; handoffs/s is the sustained rate of the ping-pong,
 * which includes the time the next waiter takes to queue.
 *
 * <p>A measurement that ends before its first handoff (a short one on a loaded machine, where the
 * first, cold handoff can take longer than the whole window) runs on until that handoff, for up to
 * {@link #GRACE}, and its rate counts over the time it really took.
 */
final class Handoff {
  static final String KEY = "bench:handoff";
  private static final int SPINS = 256;
  /** How long a measurement may run past its end while it has no sample yet. */
  static final Duration GRACE = Duration.ofSeconds(30);

  private final Target target;
  private final long measureStart;
  private final long measureEnd;
  // One histogram per player, written only by it; auto-resizing, three significant digits.
  private final Histogram[] samples = {new Histogram(3), new Histogram(3)};
  private final Thread[] players = new Thread[2];
  private final CountDownLatch firstHeld = new CountDownLatch(1);
  private volatile Throwable failure;
  // Written only by the current holder, read by the other player.
  private volatile long unlockedAt;
  private volatile long handoffs;
  // Whether a sample was taken, and when the last one was: written only by the current holder.
  private volatile boolean sampled;
  private volatile long sampledAt;

  private Handoff(Target target, Duration warmup, Duration measure) {
    this.target = target;
    this.measureStart = System.nanoTime() + warmup.toNanos();
    this.measureEnd = measureStart + measure.toNanos();
  }

  /** Sets up {@code target} with two clients, warms up, measures, and tears it down. */
  static Row run(Target target, Duration warmup, Duration measure) throws Exception {
    target.setUp(2);
    try {
      return new Handoff(target, warmup, measure).play();
    } finally {
      target.tearDown();
    }
  }

  private Row play() throws InterruptedException {
    for (int p = 0; p < 2; p++) {
      int me = p;
      Lock lock = target.handoffLock(me, KEY);
      players[p] = new Thread(() -> player(me, lock), "bench-w4-" + target.name() + "-" + p);
      players[p].setDaemon(true);
    }
    players[0].start();
    players[1].start();
    long limit = TimeUnit.NANOSECONDS.toMillis(measureEnd - System.nanoTime() + GRACE.toNanos()) + 30_000;
    for (Thread t : players) {
      t.join(Math.max(1, limit));
    }
    if (failure != null) {
      throw new IllegalStateException("W4 on " + target.name() + " failed", failure);
    }
    for (Thread t : players) {
      if (t.isAlive()) {
        throw new IllegalStateException("W4 on " + target.name() + ": " + t.getName() + " is stuck");
      }
    }
    Histogram all = new Histogram(3);
    all.add(samples[0]);
    all.add(samples[1]);
    if (all.getTotalCount() == 0) {
      throw new IllegalStateException("W4 on " + target.name() + " completed no handoff");
    }
    long end = sampled && sampledAt - measureEnd > 0 ? sampledAt : measureEnd;
    double perSec = all.getTotalCount() * 1e9 / (end - measureStart);
    return new Row(Workload.W4, target.name(), Workload.W4.threads, perSec, all.getValueAtPercentile(50),
        all.getValueAtPercentile(99));
  }

  private void player(int me, Lock lock) {
    Thread other = players[1 - me];
    boolean holding = false;
    try {
      if (me == 1) {
        firstHeld.await();
      }
      lock.lock();
      holding = true;
      if (me == 0) {
        firstHeld.countDown();
      } else {
        acquired(me, other);
      }
      while (measuring(System.nanoTime())) {
        target.awaitWaiter(KEY);
        long seen = handoffs;
        unlockedAt = System.nanoTime();
        holding = false;
        lock.unlock();
        awaitChange(seen);
        lock.lock();
        holding = true;
        acquired(me, other);
      }
      holding = false;
      lock.unlock();
    } catch (Throwable t) {
      if (failure == null) {
        failure = t;
      }
      if (holding) {
        // Lets the other player out of lock(), so it sees the failure instead of hanging.
        try {
          lock.unlock();
        } catch (RuntimeException e) {
          t.addSuppressed(e);
        }
      }
      LockSupport.unpark(other);
    }
  }

  /** Whether {@code now} is before the end, or past it but within the grace with no sample yet. */
  private boolean measuring(long now) {
    return now - measureEnd < 0 || (!sampled && now - measureEnd - GRACE.toNanos() < 0);
  }

  /** Records the handoff that just ended in this player's lock() and lets the other queue again. */
  private void acquired(int me, Thread other) {
    long now = System.nanoTime();
    if (now - measureStart >= 0 && measuring(now)) {
      samples[me].recordValue(now - unlockedAt);
      sampledAt = now;
      sampled = true;
    }
    handoffs++; // only the holder writes, so the non-atomic increment is safe
    LockSupport.unpark(other);
  }

  /** Waits until the other player has taken the lock; spins briefly, as that takes microseconds. */
  private void awaitChange(long seen) {
    for (int spins = SPINS; handoffs == seen; spins--) {
      if (failure != null) {
        throw new IllegalStateException("the other player failed");
      }
      if (spins > 0) {
        Thread.onSpinWait();
      } else {
        LockSupport.park(this);
      }
    }
  }
}
