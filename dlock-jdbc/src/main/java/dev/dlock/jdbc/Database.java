package dev.dlock.jdbc;

import dev.dlock.BackendUnavailableException;
import dev.dlock.LockException;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * Borrows a connection for one unit of work and translates its failures. Why one place: every
 * backend call must turn an SQLException into BackendUnavailableException (the database could not
 * be reached or answer in time) or LockException (anything else), never into "not acquired", and
 * must run in auto-commit mode whatever the pool's default, so each statement commits at once;
 * and a deadlock victim (InnoDB picks one now and then under contention) is simply run again,
 * after a short random pause, so that two victims of one cycle do not meet again in lockstep.
 */
final class Database {
  /** JDBC work on a borrowed connection. */
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  static final int ATTEMPTS = 4;

  private final DataSource dataSource;
  private volatile String description;

  Database(DataSource dataSource, String description) {
    this.dataSource = dataSource;
    this.description = description;
  }

  String description() {
    return description;
  }

  void describeAs(String description) {
    this.description = description;
  }

  /**
   * Runs {@code work} in auto-commit mode; {@code what} names the operation for messages. Work the
   * database chose as a deadlock victim was rolled back whole, so it is run again, up to
   * {@value #ATTEMPTS} times in all.
   */
  <T> T run(String what, Work<T> work) {
    for (int attempt = 1; ; attempt++) {
      try (Connection c = dataSource.getConnection()) {
        boolean autoCommit = c.getAutoCommit();
        if (!autoCommit) {
          c.setAutoCommit(true);
        }
        try {
          return work.run(c);
        } finally {
          if (!autoCommit) {
            c.setAutoCommit(false);
          }
        }
      } catch (SQLException e) {
        if (attempt >= ATTEMPTS || !isDeadlock(e)) {
          throw failure(what, e);
        }
        // Up to 1, 2, then 4 ms; an interrupt ends the pause early, and the next attempt runs.
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1, 1_000_000L << (attempt - 1)));
      }
    }
  }

  /** A deadlock or serialization failure: PostgreSQL and H2 by SQLState, MariaDB/MySQL by error 1213. */
  static boolean isDeadlock(SQLException e) {
    String state = e.getSQLState();
    return "40001".equals(state) || "40P01".equals(state) || e.getErrorCode() == 1213;
  }

  /** The dlock exception for a failed operation: unavailable for I/O and timeouts, else LockException. */
  RuntimeException failure(String what, SQLException e) {
    String message = String.format("database %s failed to %s: %s", description, what, oneLine(e));
    return isUnavailable(e) ? new BackendUnavailableException(message, e) : new LockException(message, e);
  }

  /** True for connection failures, timeouts and I/O errors anywhere in the cause chain. */
  static boolean isUnavailable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
          || t instanceof SQLRecoverableException || t instanceof SQLTimeoutException
          || t instanceof IOException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("08")) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** The message of {@code e} on one line, with its SQLState when it has one. */
  static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    m = m.replaceAll("\\s*[\\r\\n]+\\s*", " ").trim();
    if (e instanceof SQLException s && s.getSQLState() != null) {
      m += " [SQLState " + s.getSQLState() + "]";
    }
    return m;
  }
}
