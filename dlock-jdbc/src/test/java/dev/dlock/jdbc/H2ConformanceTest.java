package dev.dlock.jdbc;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.LockConformanceSuite;
import dev.dlock.testkit.StateLossCases;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The conformance suite, and the cases of a database that forgets a lock (its rows deleted), on an
 * in-memory H2, each client built on a plain DataSource.
 */
class H2ConformanceTest extends LockConformanceSuite implements StateLossCases {
  @RegisterExtension
  static final H2Database database = new H2Database();

  @Override
  protected LockClientBuilder newClientBuilder() {
    return LockClient.builder().backend(JdbcLockBackend.builder().dataSource(database.dataSource()).build());
  }

  /** Deletes the lock's rows over plain JDBC. */
  @Override
  public void forget(String name) throws Exception {
    database.forget(name);
  }
}
