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
    zk = new TestingServer(-1, true);
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

  @Test
  void s11OneReleaseWakesEveryWaiter() throws Exception {
    List<Scheme> all = new ArrayList<>();
    try {
      HerdLock holder = new HerdLock(url(), "w0", () -> {});
      all.add(holder);
      Scheme.Held held = holder.acquire("herd", LONG, Duration.ZERO);
      assertThat(held).isNotNull();
      List<Waiter> waiters = new ArrayList<>();
      List<CompletableFuture<String>> done = new ArrayList<>();
      for (int i = 1; i <= WAITERS; i++) {
        Waiter w = new Waiter();
        HerdLock lock = new HerdLock(url(), "w" + i, w.onWake);
        lock.watching = w.watching::countDown;
        all.add(lock);
        waiters.add(w);
        done.add(CompletableFuture.supplyAsync(() -> RedisSchemesTest.call(
            () -> lock.acquire("herd", LONG, LONG).release())));
      }
      for (Waiter w : waiters) {
        assertThat(w.watching.await(10, TimeUnit.SECONDS)).isTrue();
        w.armed.set(true);
      }
      assertThat(held.release()).isEqualTo("w0");
      for (Waiter w : waiters) {
        assertThat(w.woken.await(10, TimeUnit.SECONDS)).as("every waiter woken by one release").isTrue();
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
  void s13NaiveOneChangeWakesEveryWaiter() throws Exception {
    List<Scheme> all = new ArrayList<>();
    try {
      NaiveReadWrite holder = new NaiveReadWrite(url(), "w0", () -> {});
      all.add(holder);
      Scheme.Held held = holder.acquire("rw", false, LONG, Duration.ZERO);
      assertThat(held).isNotNull();
      List<Waiter> waiters = new ArrayList<>();
      List<CompletableFuture<String>> done = new ArrayList<>();
      for (int i = 1; i <= WAITERS; i++) {
        Waiter w = new Waiter();
        NaiveReadWrite lock = new NaiveReadWrite(url(), "w" + i, w.onWake);
        // Ready once it waits having seen every node: no change is then pending for it.
        lock.watching = n -> {
          if (n == WAITERS + 1) {
            w.watching.countDown();
          }
        };
        all.add(lock);
        waiters.add(w);
        boolean shared = i % 2 == 1;
        done.add(CompletableFuture.supplyAsync(() -> RedisSchemesTest.call(
            () -> lock.acquire("rw", shared, LONG, LONG).release())));
      }
      for (Waiter w : waiters) {
        assertThat(w.watching.await(10, TimeUnit.SECONDS)).isTrue();
        w.armed.set(true);
      }
      assertThat(held.release()).isEqualTo("w0");
      for (Waiter w : waiters) {
        assertThat(w.woken.await(10, TimeUnit.SECONDS)).as("every waiter woken by one change").isTrue();
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
