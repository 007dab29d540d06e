package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockTimeoutException;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A pending interrupt, as ReentrantLock treats it: interruptible calls throw even with no wait. */
class InterruptTest {
  private final LockClient client =
      LockClient.builder().backend(MemServer.create(Ticker.system()).newBackend()).build();
  private final DistributedLock lock = client.lock("job");

  @AfterEach
  void close() {
    Thread.interrupted();
    client.close();
  }

  @Test
  void zeroWaitsThatDeclareInterruptedExceptionThrowOnAPendingInterrupt() {
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> lock.tryLock(0, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO)).isInstanceOf(InterruptedException.class);
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> lock.acquire(Duration.ZERO)).isInstanceOf(InterruptedException.class);
    assertThat(lock.holdCount()).isZero();
  }

  @Test
  void callsThatNeverWaitOrIgnoreInterruptsKeepTheFlag() {
    Thread.currentThread().interrupt();
    assertThat(lock.tryLock()).isTrue();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    lock.lock();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(lock.holdCount()).isEqualTo(2);
    lock.unlock();
    lock.unlock();
  }

  @Test
  void aTimeoutNamesTheHolderItWasTold() throws Exception {
    try (LockClient other = LockClient.builder().backend(MemServer.named("interrupt-test").newBackend()).build();
        LockClient holder = LockClient.builder().backend(MemServer.named("interrupt-test").newBackend()).build();
        Lease held = holder.lock("job").acquire()) {
      assertThatThrownBy(() -> other.lock("job").acquire(Duration.ofMillis(20)))
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageContaining("'job'").hasMessageContaining("held by '" + holder.id() + ":");
      assertThat(held.isValid()).isTrue();
    }
  }
}
