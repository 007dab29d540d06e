package dev.dlock.jdbc;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.LockConformanceSuite;
import dev.dlock.testkit.StateLossCases;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The conformance suite, and the cases of a database that forgets a lock (its rows deleted), on a
 * real MariaDB, each client opened by URL with its own pool.
 */
class MariaDbConformanceTest extends LockConformanceSuite implements StateLossCases {
  @RegisterExtension
  static final MariaDbServer server = new MariaDbServer();

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
