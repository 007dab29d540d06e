package dev.dlock.jdbc;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance suite on session locks in an in-memory H2, each client opened by URL. */
class H2SessionConformanceTest extends SessionConformance {
  private static H2Database database;

  @BeforeAll
  static void startServer() {
    database = new H2Database();
  }

  @AfterAll
  static void stopServer() {
    database.close();
  }

  @Override
  protected LockClientBuilder newClientBuilder() {
    return LockClient.builder().url(database.url() + ";dlockMode=session");
  }

}
