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
 * Every conformance suite, and the cases of a database that forgets a lock (its rows deleted), on an
 * in-memory H2, each client built on a plain DataSource; each kind's suite on tables of its own.
 */
class H2ConformanceTest {
  @RegisterExtension
  static final H2Database database = new H2Database();

  private static LockClientBuilder builder(String table) {
    return LockClient.builder()
        .backend(JdbcLockBackend.builder().dataSource(database.dataSource()).table(table).build());
  }

  @Nested
  class Exclusive extends LockConformanceSuite implements StateLossCases {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("dlock_locks");
    }

    /** Deletes the lock's rows over plain JDBC. */
    @Override
    public void forget(String name) throws Exception {
      database.forget(name);
    }
  }

  @Nested
  class Fair extends FairLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("fair_locks");
    }
  }

  @Nested
  class ReadWrite extends ReadWriteLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("rw_locks");
    }
  }

  @Nested
  class Semaphore extends SemaphoreConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("sem_locks");
    }
  }
}
