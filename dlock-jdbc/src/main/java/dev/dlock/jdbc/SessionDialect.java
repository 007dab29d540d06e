package dev.dlock.jdbc;

import dev.dlock.spi.Ticker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of the S3 session lock, one subclass per database. Why a separate family from
 * {@link Dialect}: a session lock is taken and held by one pinned connection with the database's
 * own lock primitive (an advisory lock, a named lock, a row lock in an open transaction), so its
 * statements have nothing in common with the lease statements except the token counter in the
 * same table. Every method runs on the pinned connection; {@link #lock} may block at the server
 * for at most {@code waitMillis} and registers its statement with {@link Cancel} so another
 * thread can cancel it.
 */
abstract class SessionDialect {
  /** Where a blocking statement is published so another thread can cancel it. */
  static final class Cancel {
    private volatile @Nullable Statement running;
    private volatile boolean cancelled;

    /** Publishes {@code s}; throws if a cancel already came, so the statement never starts. */
    void running(Statement s) throws SQLException {
      running = s;
      if (cancelled) {
        throw new SQLException("cancelled before the statement started", "57014");
      }
    }

    /** Throws if a cancel came: for dialects that wait in several statements. */
    void check() throws SQLException {
      if (cancelled) {
        throw new SQLException("cancelled", "57014");
      }
    }

    /** Cancels the running statement, if any, and every later one. */
    void cancel() {
      cancelled = true;
      Statement s = running;
      if (s != null) {
        try {
          s.cancel();
        } catch (SQLException | RuntimeException ignored) {
          // The statement ended, or the connection died; either way it no longer waits.
        }
      }
    }
  }

  final String table;
  final int timeoutSeconds;
  /** The lease dialect's clock in microseconds, which tokens never fall below (see {@link Dialect}). */
  final String clockMicros;

  SessionDialect(Dialect lease) {
    this.table = lease.table;
    this.timeoutSeconds = lease.timeoutSeconds();
    this.clockMicros = lease.clockMicros();
  }

  /**
   * The session dialect of the database whose lease dialect is {@code d}; {@code ticker} is the
   * engine's clock, for a dialect that waits in steps on the client.
   */
  static SessionDialect of(Dialect d, Ticker ticker) {
    if (d instanceof PostgresDialect) {
      return new PostgresSession(d);
    }
    if (d instanceof MariaDbDialect) {
      return new MariaDbSession(d);
    }
    return new H2Session(d, ticker);
  }

  /** Runs once at start, on a borrowed connection, to create what the dialect needs. */
  void prepare(Connection c) throws SQLException {}

  /**
   * Takes the lock of {@code name} on {@code c}: at once or not at all when {@code waitMillis} is
   * 0, else waiting at the server at most that long. True if taken.
   */
  abstract boolean lock(Connection c, String name, long waitMillis, Cancel cancel) throws SQLException;

  /** The next fencing token of {@code name}, taken while holding its lock on {@code c}. */
  abstract long nextToken(Connection c, String name) throws SQLException;

  /** Gives up the lock of {@code name} held on {@code c}; false if {@code c} did not hold it. */
  abstract boolean unlock(Connection c, String name) throws SQLException;

  // ---- helpers

  final PreparedStatement prepare(Connection c, String template) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql(template));
    ps.setQueryTimeout(timeoutSeconds);
    return ps;
  }

  /** A blocking statement: no client-side timeout, since the server bounds the wait itself. */
  final PreparedStatement prepareBlocking(Connection c, String template, Cancel cancel)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql(template));
    cancel.running(ps);
    return ps;
  }

  final String sql(String template) {
    return template.replace("{table}", table).replace("{micros}", clockMicros);
  }

  /** The first row's boolean, or null if it is SQL NULL. */
  static @Nullable Boolean queryBoolean(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      boolean b = rs.getBoolean(1);
      return rs.wasNull() ? null : b;
    }
  }

  static long queryLong(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new SQLException("no row returned by: " + ps);
      }
      return rs.getLong(1);
    }
  }

  static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /** The advisory-lock key of PostgreSQL: the first 8 bytes of SHA-256(table, NUL, name). */
  static long key64(String table, String name) {
    return ByteBuffer.wrap(sha256(table + '\0' + name)).getLong();
  }

  /** The GET_LOCK name: the lock name itself up to 64 chars, else "dlock#" and 58 hex digits of its hash. */
  static String lockName64(String name) {
    if (name.length() <= 64) {
      return name;
    }
    return "dlock#" + HexFormat.of().formatHex(sha256(name)).substring(0, 58);
  }

}
