package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockTimeoutException;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.Ticker;
import dev.dlock.spi.WaitsAtServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's path for servers that queue waiters themselves: a plain try first, then waits in
 * slices at the server, and a cancel when the caller gives up. The server here is the real mem
 * server; only its waiting is done the way a database would, blocking inside the call.
 */
class ServerWaitTest {
  private final MemServer server = MemServer.create(Ticker.system());
  private final AtomicInteger serverWaits = new AtomicInteger();
  private final AtomicInteger cancels = new AtomicInteger();
  private final CountDownLatch waiting = new CountDownLatch(1);
  private final LockClient holder = LockClient.builder().backend(server.newBackend()).build();
  private final LockClient waiter = LockClient.builder().backend(new BlockingBackend(server.newBackend()))
      .maxPollInterval(Duration.ofMillis(200)).build();

  @AfterEach
  void close() {
    holder.close();
    waiter.close();
  }

  @Test
  void aFreeLockIsOnePlainTry() throws Exception {
    try (Lease lease = waiter.lock("job").acquire(Duration.ofSeconds(5))) {
      assertThat(lease.isValid()).isTrue();
    }
    assertThat(serverWaits).hasValue(0);
  }

  @Test
  void aHeldLockIsWaitedForAtTheServerUntilReleased() throws Exception {
    Lease held = holder.lock("job").acquire();
    CompletableFuture<Long> token = CompletableFuture.supplyAsync(() -> {
      try (Lease lease = waiter.lock("job").acquire(Duration.ofSeconds(30))) {
        return lease.token();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
    held.close();
    assertThat(token.get(10, TimeUnit.SECONDS)).isGreaterThan(held.token());
    assertThat(serverWaits.get()).isPositive();
  }

  @Test
  void aTimeoutAtTheServerCancelsAndNamesNoLocalThread() throws Exception {
    try (Lease held = holder.lock("job").acquire()) {
      assertThatThrownBy(() -> waiter.lock("job").acquire(Duration.ofMillis(500)))
          .isInstanceOf(LockTimeoutException.class).hasMessageContaining("'job'");
      assertThat(cancels).hasValue(1);
      assertThat(held.isValid()).isTrue();
    }
  }

  /** Waits inside the call, as an advisory lock or GET_LOCK would, by asking the mem server often. */
  private final class BlockingBackend extends CountingBackend implements WaitsAtServer {
    BlockingBackend(LockBackend delegate) {
      super(delegate);
    }

    @Override
    public Attempt acquireWaiting(String name, String owner, Duration leaseTime, Duration maxWait)
        throws InterruptedException {
      serverWaits.incrementAndGet();
      waiting.countDown();
      long end = System.nanoTime() + maxWait.toNanos();
      while (true) {
        Attempt a = delegate.tryAcquire(LockRequest.exclusive(name, owner, leaseTime, false));
        if (a.isGranted() || System.nanoTime() - end >= 0) {
          return a.isGranted() ? a : Attempt.held(Duration.ZERO, a.holder().orElse(null));
        }
        TimeUnit.MILLISECONDS.sleep(5);
      }
    }

    @Override
    public void cancel(String name, String owner) {
      cancels.incrementAndGet();
      super.cancel(name, owner);
    }
  }
}
