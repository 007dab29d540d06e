package dev.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.mem.MemServer;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;

/** The conformance suite on the in-memory backend: every client a fresh connection to one server. */
class MemConformanceTest extends LockConformanceSuite {
  private static final MemServer SERVER = MemServer.named("conformance-" + UUID.randomUUID());

  @Override
  protected LockClientBuilder newClientBuilder() {
    return LockClient.builder().backend(SERVER.newBackend());
  }

  /** Holders released and waiters cancelled leave no entry on the server once all clients closed. */
  @AfterAll
  static void nothingIsLeftOnTheServer() {
    assertThat(SERVER.activeNames()).as("names still held or waited on at the server").isZero();
  }
}
