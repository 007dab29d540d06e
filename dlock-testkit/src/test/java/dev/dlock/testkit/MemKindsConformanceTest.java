package dev.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.mem.MemServer;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;

/** The fair-lock, read-write and semaphore suites on the in-memory backend, which grants every kind. */
class MemKindsConformanceTest {
  private static final MemServer SERVER = MemServer.named("kinds-" + UUID.randomUUID());

  private static LockClientBuilder builder() {
    return LockClient.builder().backend(SERVER.newBackend());
  }

  @Nested
  class Fair extends FairLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder();
    }
  }

  @Nested
  class ReadWrite extends ReadWriteLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder();
    }
  }

  @Nested
  class Semaphore extends SemaphoreConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder();
    }
  }

  @AfterAll
  static void nothingIsLeftOnTheServer() {
    assertThat(SERVER.activeNames()).as("names still held or waited on at the server").isZero();
  }
}
