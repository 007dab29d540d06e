package dev.dlock.jdbc;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The session lock on MariaDB and MySQL. Why GET_LOCK: a named lock belongs to its connection,
 * waiting callers are queued by the server, and it is freed when the connection ends. Its name
 * space is the whole server (not one database) and holds at most 64 chars, so longer lock names
 * are replaced by "dlock#" and 58 hex digits of their SHA-256; the wait is GET_LOCK's own
 * timeout, in fractional seconds. The token is bumped in auto-commit while the lock is held, never
 * below the database clock in microseconds (see {@link Dialect}).
 */
final class MariaDbSession extends SessionDialect {
  private static final String LOCK = "SELECT GET_LOCK(?, ?)";
  private static final String UNLOCK = "SELECT RELEASE_LOCK(?)";
  private static final String BUMP = """
      INSERT INTO {table} (name, token) VALUES (?, {micros})
      ON DUPLICATE KEY UPDATE token = GREATEST(token + 1, {micros})""";
  private static final String TOKEN = "SELECT token FROM {table} WHERE name = ?";

  MariaDbSession(Dialect lease) {
    super(lease);
  }

  @Override
  boolean lock(Connection c, String name, long waitMillis, Cancel cancel) throws SQLException {
    try (PreparedStatement ps = waitMillis <= 0 ? prepare(c, LOCK) : prepareBlocking(c, LOCK, cancel)) {
      ps.setString(1, lockName64(name));
      ps.setBigDecimal(2, BigDecimal.valueOf(Math.max(0, waitMillis), 3));
      Boolean got = queryBoolean(ps);
      if (got == null) {
        throw new SQLException("GET_LOCK('" + lockName64(name) + "') failed (returned NULL)");
      }
      return got;
    }
  }

  @Override
  long nextToken(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = prepare(c, BUMP)) {
      ps.setString(1, name);
      ps.executeUpdate();
    }
    try (PreparedStatement ps = prepare(c, TOKEN)) {
      ps.setString(1, name);
      return queryLong(ps);
    }
  }

  @Override
  boolean unlock(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = prepare(c, UNLOCK)) {
      ps.setString(1, lockName64(name));
      return Boolean.TRUE.equals(queryBoolean(ps));
    }
  }
}
