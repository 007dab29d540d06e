package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.Ticker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The kinds of lock a backend does not grant are refused when the lock is made, naming the backend,
 * and the kinds share nothing with the exclusive lock of the same name.
 */
class LockKindsTest {
  // CountingBackend keeps the SPI's default kinds: exclusive only.
  private final LockClient exclusiveOnly = LockClient.builder()
      .backend(new CountingBackend(MemServer.create(Ticker.system()).newBackend())).build();
  private final LockClient allKinds =
      LockClient.builder().backend(MemServer.create(Ticker.system()).newBackend()).build();

  @AfterEach
  void close() {
    exclusiveOnly.close();
    allKinds.close();
  }

  @Test
  void kindsTheBackendLacksAreRefusedWhenTheLockIsMade() {
    assertThatThrownBy(() -> exclusiveOnly.fairLock("job"))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("FAIR")
        .hasMessageContaining("mem:").hasMessageContaining("'job'");
    assertThatThrownBy(() -> exclusiveOnly.readWriteLock("job"))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("READ");
    assertThatThrownBy(() -> exclusiveOnly.semaphore("job", 2))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("PERMIT");
  }

  @Test
  void eachKindOfOneNameIsASeparateLock() {
    try (Lease exclusive = allKinds.lock("job").tryAcquire().orElseThrow();
        Lease fair = allKinds.fairLock("job").tryAcquire().orElseThrow();
        Lease read = allKinds.readWriteLock("job").readLock().tryAcquire().orElseThrow();
        Lease permit = allKinds.semaphore("job", 1).tryAcquire().orElseThrow()) {
      assertThat(fair.token()).isGreaterThan(exclusive.token());
      assertThat(read.token()).isGreaterThan(fair.token());
      assertThat(permit.token()).isGreaterThan(read.token());
    }
  }

  @Test
  void badNamesAndPermitsAreRefusedByName() {
    assertThatThrownBy(() -> allKinds.semaphore("job", -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits must be positive: -1");
    assertThatThrownBy(() -> allKinds.readWriteLock(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> allKinds.fairLock(null)).isInstanceOf(NullPointerException.class);
  }
}
