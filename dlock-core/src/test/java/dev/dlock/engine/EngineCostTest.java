package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What costs a backend call: reentry costs none, bad input never reaches it. (Renewal batching runs
 * on virtual time, in the testkit's {@code VirtualTimeTest}.)
 */
class EngineCostTest {
  private final MemServer server = MemServer.create(Ticker.system());

  @Test
  void reentryCostsNoBackendCall() throws Exception {
    CountingBackend backend = new CountingBackend(server.newBackend());
    try (LockClient client = LockClient.builder().backend(backend).build()) {
      DistributedLock lock = client.lock("job");
      lock.lock();
      int afterFirst = backend.calls();
      for (int i = 0; i < 100; i++) {
        lock.lock();
      }
      try (Lease lease = lock.acquire()) {
        assertThat(lease.isValid()).isTrue();
      }
      for (int i = 0; i < 100; i++) {
        lock.unlock();
      }
      assertThat(backend.calls()).isEqualTo(afterFirst);
      lock.unlock();
      assertThat(backend.releases.get()).isEqualTo(1);
    }
  }

  @Test
  void aReleaseHandsTheGrantToAThreadQueuedInTheClientInOneCall() throws Exception {
    CountingBackend backend = new CountingBackend(server.newBackend());
    CountDownLatch waiting = new CountDownLatch(2);
    LockListener listener = new LockListener() {
      @Override
      public void waited(String name) {
        waiting.countDown();
      }
    };
    try (LockClient client = LockClient.builder().backend(backend).listener(listener).build()) {
      DistributedLock lock = client.lock("job");
      Lease first = lock.acquire();
      List<CompletableFuture<Long>> tokens = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        CompletableFuture<Long> token = new CompletableFuture<>();
        tokens.add(token);
        Thread t = new Thread(() -> {
          try {
            long taken;
            try (Lease l = lock.acquire(Duration.ofSeconds(10))) {
              taken = l.token();
            }
            token.complete(taken); // once released, so the counts below are final
          } catch (Throwable e) {
            token.completeExceptionally(e);
          }
        });
        t.start();
      }
      assertThat(waiting.await(10, TimeUnit.SECONDS)).as("both threads wait").isTrue();
      int acquiresBefore = backend.acquires.get();
      first.close();
      long a = tokens.get(0).get(10, TimeUnit.SECONDS);
      long b = tokens.get(1).get(10, TimeUnit.SECONDS);
      // One thread competed at the backend, the other queued behind it in the client: the first
      // release handed the grant to that one; its release then went to the backend, which woke
      // the competing thread, whose retry was granted.
      assertThat(backend.handOffs.get()).as("hand-offs").isEqualTo(1);
      assertThat(backend.releases.get()).as("releases at the backend").isEqualTo(2);
      assertThat(backend.acquires.get() - acquiresBefore).as("acquires after the first release").isEqualTo(1);
      assertThat(Math.min(a, b)).isGreaterThan(first.token());
      assertThat(a).isNotEqualTo(b);
    }
  }

  @Test
  void aClientsThreadsHandTheLockOnAtMostMaxStreakTimesInARow() throws Exception {
    CountingBackend backend = new CountingBackend(server.newBackend());
    try (LockClient client = LockClient.builder().backend(backend).build();
        LockClient other = LockClient.builder().backend(server.newBackend()).build()) {
      DistributedLock lock = client.lock("job");
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> hammers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Thread t = new Thread(() -> {
          while (!stop.get()) {
            lock.lock();
            lock.unlock();
          }
        });
        hammers.add(t);
        t.start();
      }
      assertThat(backend.firstHandOff.await(10, TimeUnit.SECONDS)).as("a hand-off").isTrue();
      try (Lease theirs = other.lock("job").acquire(Duration.ofSeconds(10))) {
        assertThat(theirs.isValid()).as("the other client got in").isTrue();
      } finally {
        stop.set(true);
        for (Thread t : hammers) {
          t.join(10_000);
        }
      }
      assertThat(backend.endings.toString()).as("releases (r) and hand-offs (h)")
          .doesNotContain("h".repeat(NameState.MAX_STREAK + 1));
    }
  }

  @Test
  void badInputIsRejectedBeforeAnyBackendCall() {
    CountingBackend backend = new CountingBackend(server.newBackend());
    try (LockClient client = LockClient.builder().backend(backend).build()) {
      assertThatThrownBy(() -> client.lock(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("name");
      assertThatThrownBy(() -> client.lock("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
      assertThatThrownBy(() -> client.lock("x".repeat(257)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("256").hasMessageContaining("257");
      assertThatThrownBy(() -> client.lock("a", Duration.ofSeconds(-1)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime").hasMessageContaining("PT-1S");
      assertThatThrownBy(() -> client.lock("a", Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime").hasMessageContaining("PT0S");
      assertThatThrownBy(() -> client.lock("a", Duration.ofDays(100_000)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime").hasMessageContaining("PT2400000H");
      assertThatThrownBy(() -> client.lock("a", Duration.ofMillis(5)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime").hasMessageContaining("PT0.005S");
      assertThatThrownBy(() -> client.lock("a").acquire(Duration.ofMillis(-1)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWait").hasMessageContaining("PT-0.001S");
      assertThatThrownBy(() -> client.lock("a").tryAcquire(null))
          .isInstanceOf(NullPointerException.class).hasMessageContaining("maxWait");
      assertThat(backend.calls()).isZero();
    }
  }

  @Test
  void builderRejectsBadSettingsNamingThem() {
    assertThatThrownBy(() -> LockClient.builder().leaseTime(Duration.ofSeconds(-5)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("leaseTime must be positive: PT-5S");
    assertThatThrownBy(() -> LockClient.builder().clientName("a:b"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a:b'");
    assertThatThrownBy(() -> LockClient.builder().maxPollInterval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxPollInterval");
    assertThatThrownBy(() -> LockClient.builder().build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("url");
  }

  /**
   * A hold released long before its deadline arms no timer for it: a sweep arms the deadlines of
   * the holds still held, so a thousand short holds schedule a few sweeps, not a thousand checks.
   * The holds that outlive a sweep are still checked at their deadlines (the testkit's ExpiryCases
   * and LossDeadlineTest).
   */
  @Test
  void holdsReleasedBeforeTheSweepScheduleNoDeadlineCheckOfTheirOwn() throws Exception {
    AtomicInteger scheduled = new AtomicInteger();
    ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1) {
      @Override
      public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        scheduled.incrementAndGet();
        return super.schedule(command, delay, unit);
      }
    };
    timers.setRemoveOnCancelPolicy(true);
    try (LockClient client = LockClient.builder().backend(server.newBackend()).scheduler(timers)
        .leaseTime(Duration.ofSeconds(30)).build()) {
      int before = scheduled.get();
      for (int i = 0; i < 1_000; i++) {
        try (Lease lease = client.lock("job-" + i % 10).acquire()) {
          assertThat(lease.isValid()).isTrue();
        }
      }
      // One sweep at most every 10 ms: a thousand holds on an in-memory backend take far less
      // than the 2.5 s that 250 sweeps would need. A check per hold would be a thousand.
      assertThat(scheduled.get() - before).as("tasks scheduled for 1,000 holds").isLessThan(250);
    } finally {
      timers.shutdownNow();
    }
  }
}
