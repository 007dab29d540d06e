package dev.dlock.jdbc;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * MariaDB's bell: the inbox waits in a {@code SLEEP} on a connection of its own, and a releaser
 * ends that sleep with {@code KILL QUERY}. Why KILL and not GET_LOCK: a blocked GET_LOCK returns
 * only when its lock's holder frees it, so a releaser on a pooled connection could wake nobody
 * but waiters of a lock it held all along, one connection per name waited for. With KILL, one
 * connection per client carries every wake-up of that client, and a release wakes the one client
 * whose queue row it removed. The releaser finds the sleep in {@code information_schema.PROCESSLIST}
 * by the inbox id, which ends the sleep statement's text.
 *
 * <p>No ring is lost between two sleeps: the sleep statement first counts the inbox's queue rows
 * and does not sleep when some are gone; a releaser rings after its dequeue committed, so the
 * statement either started before that commit, and is found and killed, or after it, and sees the
 * row gone. A KILL that finds the connection idle is dropped by the server, and the next statement
 * runs normally. A ring needs the same database user, or CONNECTION ADMIN (SUPER) and PROCESS;
 * without them rings fail (logged once) and the inbox finds its wake-ups by its rounds.
 *
 * <p>Why the process list, whose scan is a quarter of a millisecond of every hand-off, and not a
 * user lock the bell connection holds, found by {@code IS_USED_LOCK} in microseconds: tried, on
 * MariaDB 11.4, KILL QUERY of connections holding a user lock stalled under contention, the KILL
 * and the sleep it aimed at alike, for longer than the query timeout (the contention case of
 * MariaDbConformanceTest failed with socket timeouts), where the same rings by process list ran.
 */
final class MariaDbBell implements Bell {
  /** MariaDB's ER_QUERY_INTERRUPTED: the sleep was killed, which is a ring. */
  private static final int QUERY_INTERRUPTED = 1317;
  private static final int READ_MARGIN_MILLIS = 10_000;

  private static final String SLEEP = """
      SELECT CASE WHEN (SELECT COUNT(*) FROM {table}_waiters WHERE inbox = ?) < ? THEN 2
        ELSE SLEEP(?) END AS {inbox}""";

  private static final String RING = """
      BEGIN NOT ATOMIC
        DECLARE sleeper BIGINT UNSIGNED DEFAULT NULL;
        SELECT MAX(ID) INTO sleeper FROM information_schema.PROCESSLIST
        WHERE INFO LIKE ? AND ID <> CONNECTION_ID();
        IF sleeper IS NOT NULL THEN
          KILL QUERY sleeper;
        END IF;
      END""";

  private final PgListener.Opener opener;
  private final String table;
  private @Nullable String sleepSql;
  private @Nullable String inbox;
  private volatile @Nullable Connection connection;
  private int ownReadTimeout;
  private long readLimitFor = -1;

  /**
   * @param opener opens the connection the sleeps run on, outside any pool dlock made
   * @param table  the lock table, whose waiter queue the sleep counts
   */
  MariaDbBell(PgListener.Opener opener, String table) {
    this.opener = opener;
    this.table = table;
  }

  /** Ends the sleep of the client whose inbox is {@code inbox}, if it sleeps now. */
  static void ring(Connection c, String inbox) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(RING)) {
      ps.setString(1, "%SLEEP(%) END AS " + inbox);
      ps.execute();
    }
  }

  @Override
  public void open(String inbox) throws SQLException {
    Connection c = opener.open();
    try {
      c.setAutoCommit(true);
      ownReadTimeout = c.getNetworkTimeout();
    } catch (SQLException | RuntimeException e) {
      close(c);
      throw e;
    }
    this.inbox = inbox;
    this.sleepSql = SLEEP.replace("{table}", table).replace("{inbox}", inbox);
    readLimitFor = -1;
    connection = c;
  }

  @Override
  public boolean await(long nanos, int armed) throws SQLException {
    Connection c = connection;
    String sql = sleepSql;
    if (c == null || sql == null) {
      throw new SQLException("the bell connection of inbox " + inbox + " is closed");
    }
    long millis = Math.max(1, nanos / 1_000_000);
    if (millis != readLimitFor) {
      c.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, millis + READ_MARGIN_MILLIS));
      readLimitFor = millis;
    }
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, inbox);
      ps.setInt(2, armed);
      ps.setBigDecimal(3, BigDecimal.valueOf(millis, 3));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getInt(1) != 0; // 2: rows gone already, 1: the sleep was interrupted
      }
    } catch (SQLException e) {
      if (e.getErrorCode() == QUERY_INTERRUPTED) {
        return true;
      }
      throw e;
    }
  }

  @Override
  public void abort() {
    Connection c = connection;
    if (c != null) {
      try {
        c.abort(Runnable::run);
      } catch (SQLException | RuntimeException e) {
        // Already broken; the inbox thread ends at its next read.
      }
    }
  }

  @Override
  public void close() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      close(c);
    }
  }

  /** Closes {@code c}, with the read timeout it came with, should it go back to a pool. */
  private void close(Connection c) {
    try {
      c.setNetworkTimeout(Runnable::run, ownReadTimeout);
    } catch (SQLException | RuntimeException e) {
      // Broken: its pool drops it.
    }
    try {
      c.close();
    } catch (SQLException | RuntimeException e) {
      // Closing a broken connection; nothing more to do.
    }
  }
}
