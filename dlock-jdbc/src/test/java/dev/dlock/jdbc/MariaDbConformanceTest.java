package dev.dlock.jdbc;

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
 * Every conformance suite, and the cases of a database that forgets a lock (its rows deleted), on a
 * real MariaDB, each client opened by URL with its own pool; each kind's suite on tables of its own.
 */
class MariaDbConformanceTest {
  @RegisterExtension
  static final MariaDbServer server = new MariaDbServer();

  @Nested
  class Exclusive extends LockConformanceSuite implements StateLossCases {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return LockClient.builder().url(server.url());
    }

    /** Deletes the lock's rows over plain JDBC. */
    @Override
    public void forget(String name) throws Exception {
      server.forget(name);
    }
  }

  @Nested
  class Fair extends FairLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return LockClient.builder().url(server.url() + "&dlockTable=fair_locks");
    }
  }

  @Nested
  class ReadWrite extends ReadWriteLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return LockClient.builder().url(server.url() + "&dlockTable=rw_locks");
    }
  }

  @Nested
  class Semaphore extends SemaphoreConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return LockClient.builder().url(server.url() + "&dlockTable=sem_locks");
    }
  }
}
