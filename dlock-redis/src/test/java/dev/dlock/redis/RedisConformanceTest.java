package dev.dlock.redis;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.FairLockConformanceSuite;
import dev.dlock.testkit.LockConformanceSuite;
import dev.dlock.testkit.ReadWriteLockConformanceSuite;
import dev.dlock.testkit.SemaphoreConformanceSuite;
import dev.dlock.testkit.StateLossCases;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every conformance suite on one real redis-server, each client opened by URL with its own
 * connections; each suite under a key prefix of its own. The server forgets a lock (for the
 * state-loss cases) as a restart without persistence would: every key of it is gone.
 */
class RedisConformanceTest {
  @RegisterExtension
  static final RedisTestServer server = RedisTestServer.perClass();

  private static LockClientBuilder builder(String prefix) {
    return LockClient.builder().url(server.url() + "?prefix=" + prefix + ":");
  }

  @Nested
  class Exclusive extends LockConformanceSuite implements StateLossCases {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("conformance");
    }

    @Override
    public void forget(String name) {
      server.forget("conformance:", name);
    }
  }

  @Nested
  class Fair extends FairLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("conformance-fair");
    }
  }

  @Nested
  class ReadWrite extends ReadWriteLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("conformance-rw");
    }
  }

  @Nested
  class Semaphore extends SemaphoreConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("conformance-sem");
    }
  }
}
