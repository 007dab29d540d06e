package dev.dlock.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class MariaDbBackendTest extends LeaseBackendCases {
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
  TestDatabase db() {
    return server;
  }

  @Override
  String shiftExpirySql() {
    return "UPDATE dlock_locks SET expires_at = UTC_TIMESTAMP(6) + INTERVAL ? SECOND WHERE name = ?";
  }

  @Override
  String timestampType() {
    return "DATETIME(6)";
  }

}
