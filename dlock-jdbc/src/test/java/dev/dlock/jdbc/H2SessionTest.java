package dev.dlock.jdbc;

import java.sql.SQLException;
import java.sql.Statement;

class H2SessionTest extends SessionLockCases {
  private final H2Database db = new H2Database();

  @Override
  TestDatabase db() {
    return db;
  }

  @Override
  String sessionUrl() {
    return db.url() + ";dlockMode=session";
  }

  @Override
  int waitingSessions(Statement s) throws SQLException {
    return queryInt(s, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL");
  }

  /** The holder is the one session with an open transaction that wrote (its token). */
  @Override
  void killHolder(Statement s, String name) throws SQLException {
    int id = queryInt(s, "SELECT SESSION_ID FROM INFORMATION_SCHEMA.SESSIONS"
        + " WHERE CONTAINS_UNCOMMITTED AND SESSION_ID <> SESSION_ID()");
    if (id == 0) {
      throw new AssertionError("no H2 session holds an open transaction");
    }
    s.execute("CALL ABORT_SESSION(" + id + ")");
  }
}
