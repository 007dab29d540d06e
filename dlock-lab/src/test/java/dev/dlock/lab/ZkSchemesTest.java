package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The naive ZooKeeper schemes wake every waiter on one change: the herd, counted by onWake. */
class ZkSchemesTest {
  static final Duration LONG = Duration.ofSeconds(30);
  static final int WAITERS = 3;
  static TestingServer zk;

  @BeforeAll
  static void start() throws Exception {
    zk = new TestingServer(Procs.freePort(), true);
  }

  @AfterAll
  static void stop() throws Exception {
    zk.close();
  }

  static String url() {
    return "zookeeper://127.0.0.1:" + zk.getPort();
  }

  /** One waiter: its wake-ups after {@code armed} count down {@code woken}. */
  static final class Waiter {
    final CountDownLatch watching = new CountDownLatch(1);
    final CountDownLatch woken = new CountDownLatch(1);
    final AtomicBoolean armed = new AtomicBoolean();
    final Runnable onWake = () -> {
      if (armed.get()) {
        woken.countDown();
      }
    };
  }

  /** Acquires with a given wait; the scheme and lock are the contender's. */
  interface Acquire {
    Scheme.Held acquire(Duration wait) throws Exception;
  }

  /** A contender of {@link #oneChangeWakesEveryWaiter}: its scheme, to close, and how it acquires. */
  record Contender(Scheme scheme, Acquire acquire) {}

  /** Opens contender {@code w<i>}, calling {@code w}'s hooks; contender 0 holds first. */
  interface Opener {
    Contender open(int i, Waiter w) throws Exception;
  }

  @Test
  void s11OneReleaseWakesEveryWaiter() throws Exception {
    oneChangeWakesEveryWaiter("release", (i, w) -> {
      HerdLock lock = new HerdLock(url(), "w" + i, w.onWake);
      lock.watching = w.watching::countDown;
      return new Contender(lock, wait -> lock.acquire("herd", LONG, wait));
    });
  }

  @Test
  void s13NaiveOneChangeWakesEveryWaiter() throws Exception {
    oneChangeWakesEveryWaiter("change", (i, w) -> {
      NaiveReadWrite lock = new NaiveReadWrite(url(), "w" + i, w.onWake);
      // Ready once it waits having seen every node: no change is then pending for it.
      lock.watching = n -> {
        if (n == WAITERS + 1) {
          w.watching.countDown();
        }
      };
      boolean shared = i % 2 == 1;
      return new Contender(lock, wait -> lock.acquire("rw", shared, LONG, wait));
    });
  }

  /**
   * w0 holds; {@link #WAITERS} contenders wait for it; one release by w0 must wake every waiter
   * (the {@code change} in the assertion's text), and then each gets its turn.
   */
  private static void oneChangeWakesEveryWaiter(String change, Opener opener) throws Exception {
    List<Scheme> all = new ArrayList<>();
    try {
      Contender holder = opener.open(0, new Waiter());
      all.add(holder.scheme());
      Scheme.Held held = holder.acquire().acquire(Duration.ZERO);
      assertThat(held).isNotNull();
      List<Waiter> waiters = new ArrayList<>();
      List<CompletableFuture<String>> done = new ArrayList<>();
      for (int i = 1; i <= WAITERS; i++) {
        Waiter w = new Waiter();
        Contender c = opener.open(i, w);
        all.add(c.scheme());
        waiters.add(w);
        done.add(CompletableFuture.supplyAsync(() -> RedisSchemesTest.call(
            () -> c.acquire().acquire(LONG).release())));
      }
      for (Waiter w : waiters) {
        assertThat(w.watching.await(10, TimeUnit.SECONDS)).isTrue();
        w.armed.set(true);
      }
      assertThat(held.release()).isEqualTo("w0");
      for (Waiter w : waiters) {
        assertThat(w.woken.await(10, TimeUnit.SECONDS)).as("every waiter woken by one " + change).isTrue();
      }
      for (int i = 0; i < WAITERS; i++) {
        assertThat(done.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("w" + (i + 1));
      }
    } finally {
      for (Scheme s : all) {
        s.close();
      }
    }
  }

  @Test
  void s13NaiveReadersShareAndAWriterWaitsForThem() throws Exception {
    try (NaiveReadWrite a = new NaiveReadWrite(url(), "w1", () -> {});
        NaiveReadWrite b = new NaiveReadWrite(url(), "w2", () -> {})) {
      Scheme.Held r1 = a.acquire("share", true, LONG, Duration.ZERO);
      Scheme.Held r2 = b.acquire("share", true, LONG, Duration.ZERO);
      assertThat(r1).isNotNull();
      assertThat(r2).isNotNull();
      assertThat(b.acquire("share", Duration.ofMillis(100), Duration.ofMillis(100))).isNull();
      assertThat(r1.release()).isEqualTo("w1");
      assertThat(r2.release()).isEqualTo("w2");
      Scheme.Held w = b.acquire("share", LONG, Duration.ZERO);
      assertThat(w).isNotNull();
      assertThat(w.release()).isEqualTo("w2");
    }
  }
}
