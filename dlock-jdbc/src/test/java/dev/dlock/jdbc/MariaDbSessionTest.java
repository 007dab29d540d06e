package dev.dlock.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.extension.RegisterExtension;

class MariaDbSessionTest extends SessionLockCases {
  @RegisterExtension
  static final MariaDbServer server = new MariaDbServer();

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
    return queryInt(s, "SELECT COUNT(*) FROM information_schema.PROCESSLIST"
        + " WHERE ID <> CONNECTION_ID() AND STATE = 'User lock'");
  }

  @Override
  void killHolder(Statement s, String name) throws SQLException {
    int id = queryInt(s, "SELECT IS_USED_LOCK('" + name + "')");
    if (id == 0) {
      throw new AssertionError("no connection holds GET_LOCK('" + name + "')");
    }
    s.execute("KILL " + id);
  }
}
