package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import dev.dlock.internal.Abandonable;
import dev.dlock.mem.MemServer;
import dev.dlock.testkit.VirtualTime;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A waiter's pause before it asks again counts from its attempt, as the server's retry hint does,
 * on virtual time: the clock moves on between the waiter's attempt and its sleep.
 */
class RetryHintTest {
  private static final Duration LEASE = Duration.ofMillis(300);
  private final VirtualTime time = new VirtualTime();

  @Test
  void aWaiterThatComesToSleepLateSleepsOnlyWhatIsLeftOfItsPause() throws Exception {
    MemServer server = MemServer.create(time.ticker());
    CountDownLatch waiting = new CountDownLatch(1);
    CountDownLatch sleep = new CountDownLatch(1);
    LockListener stallBeforeSleep = new LockListener() {
      @Override
      public void waited(String name) {
        waiting.countDown();
        try {
          sleep.await(); // the waiter, between its attempt and its sleep, while the clock moves on
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    try (LockClient holder = client(server, new LockListener() {});
        LockClient waiter = client(server, stallBeforeSleep)) {
      Lease held = holder.lock("job").acquire();
      CompletableFuture<Long> granted = new CompletableFuture<>();
      Thread contender = new Thread(() -> {
        try (Lease next = waiter.lock("job").acquire(Duration.ofMinutes(1))) {
          granted.complete(next.token());
        } catch (Exception | Error e) {
          granted.completeExceptionally(e);
        }
      }, "contender");
      contender.setDaemon(true);
      contender.start();
      assertThat(waiting.await(10, TimeUnit.SECONDS)).as("the waiter found the lock held").isTrue();
      // The holder crashes, so no release wakes the waiter: only its next attempt finds the lock
      // free, once the lease has run out at the server.
      ((Abandonable) holder).abandon();
      time.advance(LEASE.plusMillis(100));
      sleep.countDown();

      // Counted from its sleep, its 5 ms pause would end past a clock that no longer moves.
      assertThat(granted.get(10, TimeUnit.SECONDS)).isGreaterThan(held.token());
    }
  }

  private LockClient client(MemServer server, LockListener listener) {
    return LockClient.builder().backend(server.newBackend()).ticker(time.ticker()).scheduler(time.scheduler())
        .leaseTime(LEASE).maxPollInterval(Duration.ofMillis(5)).listener(listener).build();
  }
}
