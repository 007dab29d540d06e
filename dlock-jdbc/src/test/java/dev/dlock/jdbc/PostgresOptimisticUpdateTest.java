package dev.dlock.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class PostgresOptimisticUpdateTest extends OptimisticUpdateCases {
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
  TestDatabase db() {
    return server;
  }
}
