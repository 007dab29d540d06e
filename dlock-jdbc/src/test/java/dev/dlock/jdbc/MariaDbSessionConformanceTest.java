package dev.dlock.jdbc;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance suite on session locks in a real MariaDB, each client opened by URL with its own pool. */
class MariaDbSessionConformanceTest extends SessionConformance {
  private static MariaDbServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = MariaDbServer.start();
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
