package dev.dlock.jdbc;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The conformance suite on session locks in a real PostgreSQL, each client opened by URL with its own pool. */
class PostgresSessionConformanceTest extends SessionConformance {
  @RegisterExtension
  static final PostgresServer server = new PostgresServer();

  @Override
  protected LockClientBuilder newClientBuilder() {
    return LockClient.builder().url(server.url() + "&dlockMode=session");
  }

}
