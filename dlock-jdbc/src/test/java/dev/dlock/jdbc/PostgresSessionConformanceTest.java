package dev.dlock.jdbc;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance suite on session locks in a real PostgreSQL, each client opened by URL with its own pool. */
class PostgresSessionConformanceTest extends SessionConformance {
  private static PostgresServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = PostgresServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @Override
  protected LockClientBuilder newClientBuilder() {
    return LockClient.builder().url(server.url() + "&dlockMode=session");
  }

}
