package dev.dlock.jdbc;

import dev.dlock.spi.Ticker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/**
 * The session lock on H2: {@code SELECT ... FOR UPDATE} on the lock's row in a transaction left
 * open until release, bounded by the session's LOCK_TIMEOUT. H2 does not end a lock wait when its
 * statement is cancelled, so a long wait is made of waits of at most {@value #CHUNK_MILLIS} ms,
 * with a check for a cancel between them; a release still ends the current one at once. Why the token comes from a sequence
 * here: everything the holder writes in that transaction is rolled back when its connection dies,
 * so a token kept only in the row would be handed out twice; the sequence {@code <table>_token_seq}
 * never goes back, and the row's token column is set to it (visible once released). A release
 * commits; a dead session rolls back and frees the row. The clock alone would not do here: a
 * waiter's transaction, and so its CURRENT_TIMESTAMP, may begin before the previous holder's.
 */
final class H2Session extends SessionDialect {
  private static final String CLOCK = "SELECT {micros}";
  private static final String CREATE_SEQUENCE =
      "CREATE SEQUENCE IF NOT EXISTS {table}_token_seq START WITH {start}";
  private static final String ENSURE_ROW = """
      INSERT INTO {table} (name, token)
      SELECT CAST(? AS VARCHAR), 0 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM {table} WHERE name = ?)""";
  private static final String LOCK = "SELECT token FROM {table} WHERE name = ? FOR UPDATE";
  private static final String NEXT = "SELECT NEXT VALUE FOR {table}_token_seq";
  private static final String SET_TOKEN = "UPDATE {table} SET token = ? WHERE name = ?";
  /** H2's default lock timeout, restored before a connection goes back to its pool. */
  private static final int DEFAULT_LOCK_TIMEOUT = 1000;
  /** LOCK_TIMEOUT_1: the row stayed locked for the whole lock timeout. */
  private static final int LOCK_TIMEOUT = 50200;
  /** The longest single lock wait, so that a cancel is seen this soon. */
  static final int CHUNK_MILLIS = 100;

  private final Ticker ticker;

  H2Session(Dialect lease, Ticker ticker) {
    super(lease);
    this.ticker = ticker;
  }

  /**
   * Creates the sequence if absent, starting at the database clock in microseconds, so a database
   * that lost it (restored empty, say) starts above every token handed out before.
   */
  @Override
  void prepare(Connection c) throws SQLException {
    long start;
    try (PreparedStatement ps = prepare(c, CLOCK)) {
      start = queryLong(ps);
    }
    String create = sql(CREATE_SEQUENCE).replace("{start}", Long.toString(start));
    try (Statement s = c.createStatement()) {
      s.execute(create);
    } catch (SQLException e) {
      // IF NOT EXISTS does not hold against another process creating it at the same moment (H2
      // then fails with "object already exists"); run again, the statement finds it and does
      // nothing, and any other failure fails again.
      try (Statement s = c.createStatement()) {
        s.execute(create);
      } catch (SQLException again) {
        again.addSuppressed(e);
        throw again;
      }
    }
  }

  @Override
  boolean lock(Connection c, String name, long waitMillis, Cancel cancel) throws SQLException {
    try (PreparedStatement ps = prepare(c, ENSURE_ROW)) {
      ps.setString(1, name);
      ps.setString(2, name);
      ps.executeUpdate();
    } catch (SQLException e) {
      if (!Dialect.isDuplicateKey(e)) {
        throw e; // a duplicate: another client made the row at the same moment
      }
    }
    c.setAutoCommit(false);
    boolean locked = false;
    long deadline = ticker.read() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, waitMillis));
    try {
      while (true) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - ticker.read());
        setLockTimeout(c, Math.max(1, Math.min(left, CHUNK_MILLIS))); // 0 would wait forever
        try (PreparedStatement ps = prepare(c, LOCK)) {
          ps.setString(1, name);
          queryLong(ps);
          locked = true;
          return true;
        } catch (SQLException e) {
          if (e.getErrorCode() != LOCK_TIMEOUT) {
            throw e;
          }
          if (left <= CHUNK_MILLIS) {
            return false;
          }
          cancel.check();
        }
      }
    } finally {
      if (!locked) {
        c.rollback();
        c.setAutoCommit(true);
        setLockTimeout(c, DEFAULT_LOCK_TIMEOUT);
      }
    }
  }

  @Override
  long nextToken(Connection c, String name) throws SQLException {
    long token;
    try (PreparedStatement ps = prepare(c, NEXT)) {
      token = queryLong(ps);
    }
    try (PreparedStatement ps = prepare(c, SET_TOKEN)) {
      ps.setLong(1, token);
      ps.setString(2, name);
      ps.executeUpdate();
    }
    return token;
  }

  @Override
  boolean unlock(Connection c, String name) throws SQLException {
    c.commit();
    c.setAutoCommit(true);
    setLockTimeout(c, DEFAULT_LOCK_TIMEOUT);
    return true;
  }

  private static void setLockTimeout(Connection c, long millis) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SET LOCK_TIMEOUT " + millis);
    }
  }
}
