package dev.dlock.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class PostgresSessionTest extends SessionLockCases {
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
  String sessionUrl() {
    return server.url() + "&dlockMode=session";
  }

  @Override
  int waitingSessions(Statement s) throws SQLException {
    return queryInt(s, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
  }

  @Override
  void killHolder(Statement s, String name) throws SQLException {
    int killed = queryInt(s, "SELECT count(pg_terminate_backend(pid)) FROM pg_locks"
        + " WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()");
    if (killed != 1) {
      throw new AssertionError("expected one holder of an advisory lock, found " + killed);
    }
  }
}
