package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import dev.dlock.LockListener;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * W4, the hand-off latency, on MariaDB and H2, which dlock-bench has no target for: the bench's
 * ping-pong ({@code dev.dlock.bench.Handoff}) between two clients made from a URL, each player
 * unlocking once the other is seen waiting and the other reading the clock when its lock()
 * returns. Not part of the build: it runs only when named, with
 * {@code -Dtest=HandoffLatencyTest -Ddlock.handoff=mariadb} (or {@code h2}, or
 * {@code h2,mariadb}), and prints p50 and p99. {@code -Ddlock.handoff.seconds=N} sets the measured time (default 20, after 5 of warm-up).
 */
@EnabledIfSystemProperty(named = "dlock.handoff", matches = "(mariadb|h2)(,(mariadb|h2))*")
class HandoffLatencyTest {
  private static final String KEY = "bench:handoff";
  private final Semaphore[] waited = {new Semaphore(0), new Semaphore(0)};
  private final long[] samples = new long[1 << 20];
  private final Thread[] players = new Thread[2];
  private volatile long unlockedAt;
  private volatile int handoffs;
  private volatile long measureFrom;
  private volatile long measureUntil;
  private int count; // written by the holder only
  private volatile Throwable failure;

  @Test
  void handoffLatency() throws Exception {
    for (String target : System.getProperty("dlock.handoff").split(",")) {
      new HandoffLatencyTest().measure(target);
    }
  }

  private void measure(String target) throws Exception {
    TestDatabase db = "h2".equals(target) ? new H2Database() : new MariaDbServer();
    db.open();
    try {
      LockClient[] clients = new LockClient[2];
      for (int i = 0; i < 2; i++) {
        Semaphore mine = waited[i];
        clients[i] = LockClient.builder().url(db.url()).clientName("w4-" + i).listener(new LockListener() {
          @Override
          public void waited(String name) {
            mine.release();
          }
        }).build();
      }
      long seconds = Long.getLong("dlock.handoff.seconds", 20);
      measureFrom = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      measureUntil = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
      for (int p = 0; p < 2; p++) {
        int me = p;
        Lock lock = clients[p].lock(KEY);
        players[p] = new Thread(() -> play(me, lock), "w4-player-" + p);
      }
      players[0].start();
      players[1].start();
      for (Thread t : players) {
        t.join(TimeUnit.SECONDS.toMillis(seconds + 60));
      }
      for (LockClient c : clients) {
        c.close();
      }
      assertThat(failure).isNull();
      long[] sorted = Arrays.copyOf(samples, count);
      Arrays.sort(sorted);
      assertThat(sorted).isNotEmpty();
      System.out.printf("W4 %s: %d hand-offs in %d s, p50 %.3f ms, p99 %.3f ms%n", target, sorted.length,
          seconds, sorted[sorted.length / 2] / 1e6, sorted[(int) (sorted.length * 0.99)] / 1e6);
    } finally {
      db.close();
    }
  }

  private void play(int me, Lock lock) {
    try {
      if (me == 1) {
        while (handoffs == 0) {
          LockSupport.parkNanos(1_000_000);
        }
      }
      lock.lock();
      acquired(me);
      while (System.nanoTime() - measureUntil < 0) {
        waited[1 - me].acquire();
        waited[1 - me].drainPermits();
        int seen = handoffs;
        unlockedAt = System.nanoTime();
        lock.unlock();
        while (handoffs == seen) {
          LockSupport.park(this);
        }
        lock.lock();
        acquired(me);
      }
      lock.unlock();
    } catch (Throwable t) {
      failure = t;
    } finally {
      LockSupport.unpark(players[1 - me]);
    }
  }

  private void acquired(int me) {
    long now = System.nanoTime();
    if (handoffs > 0 && now - measureFrom >= 0 && now - measureUntil < 0 && count < samples.length) {
      samples[count++] = now - unlockedAt;
    }
    handoffs++;
    LockSupport.unpark(players[1 - me]);
  }
}
