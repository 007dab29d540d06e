package dev.dlock.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class H2BackendTest extends LeaseBackendCases {
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
  TestDatabase db() {
    return database;
  }

  @Override
  String shiftExpirySql() {
    return "UPDATE dlock_locks SET expires_at = DATEADD(SECOND, ?, CURRENT_TIMESTAMP) WHERE name = ?";
  }

  @Override
  String timestampType() {
    return "TIMESTAMP(6) WITH TIME ZONE";
  }

}
