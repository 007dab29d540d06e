package dev.dlock.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class PostgresBackendTest extends LeaseBackendCases {
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

  @Override
  String shiftExpirySql() {
    return "UPDATE dlock_locks SET expires_at = now() + make_interval(secs => ?) WHERE name = ?";
  }

  @Override
  String timestampType() {
    return "TIMESTAMPTZ";
  }

}
