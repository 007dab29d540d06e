package dev.dlock.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.dlock.BackendUnavailableException;
import dev.dlock.LockException;
import dev.dlock.internal.CallTimeout;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Borrows a connection for one unit of work, bounds its waits and translates its failures. Why one
 * place: every backend call must end by the engine's deadline for it ({@link CallTimeout}), which
 * takes a bounded wait for a pooled connection and a network timeout on every read; must turn an
 * SQLException into BackendUnavailableException (the database could not be reached or answer in
 * time) or LockException (anything else), never into "not acquired"; and must run in auto-commit
 * mode whatever the pool's default, so each statement commits at once. Two failures are worked
 * around here: a deadlock victim (InnoDB picks one now and then under contention) is run again
 * after a short random pause, so two victims of one cycle do not meet again in lockstep; and work
 * that finds the lock table gone (a database restored empty) has the backend make it again, once,
 * and runs again.
 */
final class Database {
  /** JDBC work on a borrowed connection. */
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /** Makes the lock tables again, on the connection whose work found them missing. */
  interface Remake {
    void run(Connection c) throws SQLException;
  }

  static final int ATTEMPTS = 4;
  /** Pauses of up to 1, 2, then 4 ms between the attempts of work chosen as a deadlock victim. */
  private static final Retry DEADLOCK_RETRY = new Retry(Duration.ofMillis(1), Duration.ofMillis(4));
  /**
   * PostgreSQL: the session was ended by a shutdown or an idle timeout, none can start now, or
   * the statement ran out of time (57014, also H2's).
   */
  private static final Set<String> UNAVAILABLE_STATES =
      Set.of("57P01", "57P02", "57P03", "57P05", "53300", "57014");
  /**
   * MariaDB/MySQL: connection killed, disconnected for inactivity, server gone away, connection
   * lost, max_statement_time exceeded; H2: I/O errors, connection broken, database closed or
   * shutting down, opened elsewhere. The two ranges do not overlap, and PostgreSQL reports no
   * error codes.
   */
  private static final Set<Integer> UNAVAILABLE_CODES = Set.of(1927, 4031, 2006, 2013, 1969,
      90020, 90028, 90031, 90067, 90098, 90121, 90135);
  /** setNetworkTimeout only arms a socket timeout, so it can run on the caller's thread. */
  private static final Executor DIRECT = Runnable::run;

  private final DataSource dataSource;
  private final @Nullable HikariDataSource hikari;
  private final long readNanos;
  private final boolean poolReadsBounded;
  private volatile String description;
  private volatile @Nullable Remake remake;
  private volatile boolean networkTimeouts = true;

  /**
   * @param readTimeout how long one read from the database may wait when the engine set no
   *                    deadline for the call; zero to leave the driver's own limit then
   */
  Database(DataSource dataSource, String description, Duration readTimeout) {
    this(dataSource, description, readTimeout, false);
  }

  /**
   * @param poolReadsBounded true when every connection of the pool has {@code readTimeout} as its
   *                         network timeout already, so a call with no shorter deadline leaves it
   */
  Database(DataSource dataSource, String description, Duration readTimeout, boolean poolReadsBounded) {
    this.dataSource = dataSource;
    this.hikari = hikari(dataSource);
    this.description = description;
    this.readNanos = readTimeout.toNanos();
    this.poolReadsBounded = poolReadsBounded && readNanos > 0;
  }

  private static @Nullable HikariDataSource hikari(DataSource ds) {
    try {
      return ds.isWrapperFor(HikariDataSource.class) ? ds.unwrap(HikariDataSource.class) : null;
    } catch (SQLException | RuntimeException | LinkageError e) {
      return null; // not a HikariCP pool: its own timeouts bound the wait for a connection
    }
  }

  /** True when the pool is known to hold one connection at most, so a second borrow would only wait. */
  boolean singleConnection() {
    HikariDataSource h = hikari;
    return h != null && h.getMaximumPoolSize() <= 1;
  }

  /** The pool's most connections where it is a HikariCP pool; 0 when it cannot be known. */
  int maxConnections() {
    HikariDataSource h = hikari;
    return h == null ? 0 : h.getMaximumPoolSize();
  }

  String description() {
    return description;
  }

  void describeAs(String description) {
    this.description = description;
  }

  /** From now on, work that finds the lock table missing has {@code remake} make it, once per call. */
  void remakeTablesWith(Remake remake) {
    this.remake = remake;
  }

  /**
   * Runs {@code work} in auto-commit mode; {@code what} names the operation for messages. Work the
   * database chose as a deadlock victim was rolled back whole, so it is run again, up to
   * {@value #ATTEMPTS} times in all.
   */
  <T> T run(String what, Work<T> work) {
    return run(what, null, work);
  }

  /**
   * {@link #run(String, Work)} for work on lock {@code name}, named in messages as "{@code verb}
   * '{@code name}'": made only for a failure, since a grant or a release is too short to spend on
   * building a message it almost never needs.
   */
  <T> T run(String verb, @Nullable String name, Work<T> work) {
    boolean[] remade = {false};
    return DEADLOCK_RETRY.run(attempt -> {
      try (Borrowed b = borrow()) {
        Connection c = b.connection();
        try {
          return Retry.done(inAutoCommit(c, work));
        } catch (SQLException e) {
          Remake r = remake;
          if (remade[0] || r == null || !Dialect.isMissingTable(e)) {
            throw e;
          }
          remade[0] = true;
          try {
            r.run(c);
          } catch (SQLException | RuntimeException again) {
            again.addSuppressed(e);
            throw again;
          }
          return Retry.again();
        }
      } catch (SQLException e) {
        if (attempt >= ATTEMPTS || !isDeadlock(e)) {
          throw failure(name == null ? verb : verb + " '" + name + "'", e);
        }
        return Retry.again();
      }
    });
  }

  private static <T> T inAutoCommit(Connection c, Work<T> work) throws SQLException {
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
  }

  /**
   * A borrowed connection. Closing it gives it back; a pool other than HikariCP (which resets it
   * itself) gets it with the read timeout it had, so the application's own statements on it are
   * not cut off by dlock's.
   *
   * @param readTimeout the network timeout to restore, in ms; -1 for none
   */
  record Borrowed(Connection connection, int readTimeout) implements AutoCloseable {
    @Override
    public void close() throws SQLException {
      try {
        if (readTimeout >= 0) {
          connection.setNetworkTimeout(DIRECT, readTimeout);
        }
      } catch (SQLException e) {
        // A broken connection, which its pool drops anyway.
      } finally {
        connection.close();
      }
    }

    /** Closes it, adding a failure to {@code cause} if there is one; {@code cause} may be null. */
    void closeQuietly(@Nullable Throwable cause) {
      try {
        close();
      } catch (SQLException | RuntimeException e) {
        if (cause != null) {
          cause.addSuppressed(e);
        }
      }
    }
  }

  /**
   * A connection, waited for no longer than this call may wait (when the pool is HikariCP, whose
   * own connection timeout is the limit otherwise), with its reads bounded the same way.
   */
  Borrowed borrow() throws SQLException {
    HikariDataSource h = hikari;
    HikariPool pool = h == null ? null : hikariPool(h);
    Connection c = h == null || pool == null ? dataSource.getConnection()
        : pool.getConnection(millis(CallTimeout.boundNanos(
            TimeUnit.MILLISECONDS.toNanos(h.getConnectionTimeout()))));
    Borrowed b = new Borrowed(c, -1);
    long read = CallTimeout.boundNanos(readNanos == 0 ? Long.MAX_VALUE : readNanos);
    if (read != Long.MAX_VALUE && networkTimeouts && !(poolReadsBounded && read >= readNanos)) {
      try {
        b = new Borrowed(c, pool == null ? c.getNetworkTimeout() : -1);
        c.setNetworkTimeout(DIRECT, millis(read));
      } catch (SQLFeatureNotSupportedException e) {
        networkTimeouts = false; // the driver cannot: its query timeout bounds statements alone
      } catch (SQLException | RuntimeException e) {
        b.closeQuietly(e);
        throw e;
      }
    }
    return b;
  }

  private static @Nullable HikariPool hikariPool(HikariDataSource hikari) {
    return !hikari.isClosed() && hikari.getHikariPoolMXBean() instanceof HikariPool p ? p : null;
  }

  /** The time this call may wait on a read, for work that waits at the server beyond that. */
  long readNanos() {
    return readNanos;
  }

  /**
   * Makes every read on {@code c} fail after {@code nanos}, so a server that stops answering (a
   * paused process, a dropped network path) breaks the connection instead of hanging the caller.
   * A driver that cannot is left to its query timeout.
   */
  void limitReads(Connection c, long nanos) throws SQLException {
    if (!networkTimeouts) {
      return;
    }
    try {
      c.setNetworkTimeout(DIRECT, millis(nanos));
    } catch (SQLFeatureNotSupportedException e) {
      networkTimeouts = false;
    }
  }

  static int millis(long nanos) {
    long ms = TimeUnit.NANOSECONDS.toMillis(nanos + 999_999);
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, ms));
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

  /**
   * True for connection failures, timeouts, I/O errors and sessions ended by the server, anywhere
   * in the cause chain: SQLState class 08 and the states and codes above.
   */
  static boolean isUnavailable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
          || t instanceof SQLRecoverableException || t instanceof SQLTimeoutException
          || t instanceof IOException) {
        return true;
      }
      if (t instanceof SQLException s && isUnavailableState(s)) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  private static boolean isUnavailableState(SQLException s) {
    String state = s.getSQLState();
    return (state != null && (state.startsWith("08") || UNAVAILABLE_STATES.contains(state)))
        || UNAVAILABLE_CODES.contains(s.getErrorCode());
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
