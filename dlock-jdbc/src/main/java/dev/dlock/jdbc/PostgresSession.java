package dev.dlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The session lock on PostgreSQL. Why advisory locks: a session-level {@code pg_advisory_lock} is
 * queued and granted by the server, survives the commits of its connection and is dropped by the
 * server when the connection ends, which is the crash safety S3 asks for. The key is 64 bits of
 * SHA-256 over the table and the lock name, so two names collide with odds of about n²/2⁶⁵ (for a
 * million names, one in 3.7·10⁷); a collision makes two names exclude each other, never breaks
 * exclusion. A wait runs in a short transaction whose {@code lock_timeout} (local to it) bounds
 * it; the lock outlives the transaction. The token is bumped in auto-commit while the lock is held,
 * never below the database clock in microseconds (see {@link Dialect}).
 */
final class PostgresSession extends SessionDialect {
  private static final String TRY_LOCK = "SELECT pg_try_advisory_lock(?)";
  private static final String SET_TIMEOUT = "SELECT set_config('lock_timeout', ?, true)";
  private static final String LOCK = "SELECT pg_advisory_lock(?)";
  private static final String UNLOCK = "SELECT pg_advisory_unlock(?)";
  private static final String BUMP = """
      INSERT INTO {table} AS l (name, token) VALUES (?, {micros})
      ON CONFLICT (name) DO UPDATE SET token = GREATEST(l.token + 1, EXCLUDED.token)
      RETURNING l.token""";
  /** lock_not_available, the error of a lock_timeout. */
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  PostgresSession(Dialect lease) {
    super(lease);
  }

  @Override
  boolean lock(Connection c, String name, long waitMillis, Cancel cancel) throws SQLException {
    long key = key64(table, name);
    if (waitMillis <= 0) {
      try (PreparedStatement ps = prepare(c, TRY_LOCK)) {
        ps.setLong(1, key);
        return Boolean.TRUE.equals(queryBoolean(ps));
      }
    }
    c.setAutoCommit(false);
    try {
      try (PreparedStatement ps = prepare(c, SET_TIMEOUT)) {
        ps.setString(1, waitMillis + "ms");
        ps.executeQuery().close();
      }
      try (PreparedStatement ps = prepareBlocking(c, LOCK, cancel)) {
        ps.setLong(1, key);
        ps.executeQuery().close();
      }
      c.commit();
      return true;
    } catch (SQLException e) {
      c.rollback();
      if (LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
        return false;
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  @Override
  long nextToken(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = prepare(c, BUMP)) {
      ps.setString(1, name);
      return queryLong(ps);
    }
  }

  @Override
  boolean unlock(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = prepare(c, UNLOCK)) {
      ps.setLong(1, key64(table, name));
      return Boolean.TRUE.equals(queryBoolean(ps));
    }
  }
}
