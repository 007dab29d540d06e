package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.LeaderLatch;
import dev.dlock.LeaderListener;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One rule for waits longer than a year in every form that waits: no deadline. Each form is
 * called with such a wait while another client holds the lock; it must neither throw nor give up,
 * and must take the lock once the holder lets go.
 */
class LongWaitTest {
  private static final Duration OVER_A_YEAR = Duration.ofDays(366);
  private static final Duration PATIENCE = Duration.ofSeconds(10);
  private final MemServer server = MemServer.create(Ticker.system());
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final CountDownLatch waited = new CountDownLatch(1);
  private final LockClient holder = client(new LockListener() {});
  private final LockClient waiter = client(new LockListener() {
    @Override
    public void waited(String name) {
      waited.countDown();
    }
  });

  private LockClient client(LockListener listener) {
    LockClient c = LockClient.builder().backend(server.newBackend()).listener(listener).build();
    toClose.add(c);
    return c;
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  /** A wait in the waiter that must start waiting, then end with the lock once {@code held} closes. */
  private <T> T waitsThenTakes(Lease held, Waiting<T> call) throws Exception {
    CompletableFuture<T> result = CompletableFuture.supplyAsync(() -> {
      try {
        return call.run();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertThat(waited.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the waiter waits").isTrue();
    assertThat(result).as("a wait over a year neither throws nor gives up while held").isNotDone();
    held.close();
    return result.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
  }

  interface Waiting<T> {
    T run() throws Exception;
  }

  @Test
  void theRuleIsOneForDurationAndTimeUnit() {
    assertThat(Args.waitNanos(Args.MAX_WAIT)).isEqualTo(Args.MAX_WAIT.toNanos());
    assertThat(Args.waitNanos(OVER_A_YEAR)).isEqualTo(Args.NO_DEADLINE);
    assertThat(Args.waitNanos(Duration.ofSeconds(Long.MAX_VALUE))).as("no overflow").isEqualTo(Args.NO_DEADLINE);
    assertThat(Args.waitNanos(365, TimeUnit.DAYS)).isEqualTo(Args.MAX_WAIT.toNanos());
    assertThat(Args.waitNanos(366, TimeUnit.DAYS)).isEqualTo(Args.NO_DEADLINE);
    assertThat(Args.waitNanos(Long.MAX_VALUE, TimeUnit.NANOSECONDS)).isEqualTo(Args.NO_DEADLINE);
    assertThat(Args.waitNanos(-5, TimeUnit.SECONDS)).as("Lock.tryLock: zero or less does not wait").isZero();
  }

  @Test
  void acquireWithADuration() throws Exception {
    Lease got = waitsThenTakes(holder.lock("a").acquire(), () -> waiter.lock("a").acquire(OVER_A_YEAR));
    assertThat(got.isValid()).isTrue();
  }

  @Test
  void tryAcquireWithADuration() throws Exception {
    Optional<Lease> got = waitsThenTakes(holder.lock("a").acquire(),
        () -> waiter.lock("a").tryAcquire(Duration.ofSeconds(Long.MAX_VALUE)));
    assertThat(got).isPresent();
  }

  @Test
  void tryLockWithATimeUnit() throws Exception {
    DistributedLock lock = waiter.lock("a");
    boolean got = waitsThenTakes(holder.lock("a").acquire(), () -> {
      boolean taken = lock.tryLock(400, TimeUnit.DAYS);
      if (taken) {
        lock.unlock();
      }
      return taken;
    });
    assertThat(got).isTrue();
  }

  @Test
  void aSemaphore() throws Exception {
    Lease got = waitsThenTakes(holder.semaphore("s", 1).acquire(),
        () -> waiter.semaphore("s", 1).acquire(OVER_A_YEAR));
    assertThat(got.isValid()).isTrue();
  }

  @Test
  void theWriteLock() throws Exception {
    Lease got = waitsThenTakes(holder.readWriteLock("rw").readLock().acquire(),
        () -> waiter.readWriteLock("rw").writeLock().acquire(OVER_A_YEAR));
    assertThat(got.isValid()).isTrue();
  }

  @Test
  void theReadLock() throws Exception {
    Optional<Lease> got = waitsThenTakes(holder.readWriteLock("rw").writeLock().acquire(),
        () -> waiter.readWriteLock("rw").readLock().tryAcquire(OVER_A_YEAR));
    assertThat(got).isPresent();
  }

  @Test
  void leaderElection() throws Exception {
    try (LeaderLatch first = holder.leaderLatch("lead", new LeaderListener() {})) {
      assertThat(first.awaitLeadership(PATIENCE)).isTrue();
      try (LeaderLatch second = waiter.leaderLatch("lead", new LeaderListener() {})) {
        CompletableFuture<Boolean> led = CompletableFuture.supplyAsync(() -> {
          try {
            return second.awaitLeadership(OVER_A_YEAR);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
        assertThat(waited.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the second stands").isTrue();
        assertThat(led).as("a wait over a year neither throws nor gives up").isNotDone();
        first.close();
        assertThat(led.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
      }
    }
  }
}
