package dev.dlock.lab;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The tables the JDBC peers expect, created if missing. ShedLock and Spring Integration leave
 * their tables to the user, who creates them once, before the first node starts; the lab's workers
 * all start at once, and two {@code CREATE TABLE IF NOT EXISTS} at the same moment can still
 * collide in PostgreSQL's catalog, so creation takes a transaction-scoped advisory lock first.
 */
final class PeerTables {
  /** ShedLock's table as its documentation gives it for PostgreSQL. */
  static final String SHEDLOCK = "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY,"
      + " lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)";

  /** Spring Integration's INT_LOCK, as its schema-postgresql.sql has it. */
  static final String INT_LOCK = "CREATE TABLE IF NOT EXISTS INT_LOCK (LOCK_KEY CHAR(36) NOT NULL,"
      + " REGION VARCHAR(100) NOT NULL, CLIENT_ID CHAR(36), CREATED_DATE TIMESTAMP NOT NULL,"
      + " CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))";

  /** Any fixed number: the advisory lock only orders the lab's own table creations. */
  private static final long ADVISORY_KEY = 0x64_6c_6f_63_6b_6c_61_62L;

  private PeerTables() {}

  /** Runs {@code ddl} (an {@code IF NOT EXISTS} statement) under the advisory lock. */
  static void create(DataSource ds, String ddl) throws SQLException {
    try (Connection c = ds.getConnection()) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("SELECT pg_advisory_xact_lock(" + ADVISORY_KEY + ")");
        s.execute(ddl);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(auto);
      }
    }
  }
}
