package dev.dlock.jdbc;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.FairLockConformanceSuite;
import dev.dlock.testkit.LockConformanceSuite;
import dev.dlock.testkit.ReadWriteLockConformanceSuite;
import dev.dlock.testkit.SemaphoreConformanceSuite;
import dev.dlock.testkit.StateLossCases;
import java.sql.Connection;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Every conformance suite, and the cases of a database that forgets a lock (its rows deleted), on a
 * real PostgreSQL, each client opened by URL with its own pool; each kind's suite on tables of its own.
 * The leader latch's cases run here too, on the same server.
 */
// Beside the module's other classes, as it spends its time on servers of its own; its
// cases one after another (the lock makes them share the class's thread).
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("the class's own PostgreSQL for the conformance suites")
class PostgresConformanceTest {
  @RegisterExtension
  static final PostgresServer server = new PostgresServer();

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

  @Nested
  class Leader extends PostgresLeaderLatchCases {
    @Override
    String url() {
      return server.url();
    }

    @Override
    Connection connect() throws Exception {
      return server.dataSource().getConnection();
    }
  }
}
