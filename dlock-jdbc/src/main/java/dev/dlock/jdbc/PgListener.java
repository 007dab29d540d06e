package dev.dlock.jdbc;

import dev.dlock.spi.Ticker;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The PostgreSQL inbox: a LISTEN on this client's own channel. Why a dedicated, unpooled
 * connection: a LISTEN lives on one session, which must stay open and be read continuously, so it
 * cannot be a pooled connection that is handed back. A release NOTIFYs the channel of the client
 * whose waiter it dequeued, with the lock name as payload; this thread wakes that name's waiter.
 */
final class PgListener extends Inbox {
  private static final int READ_MILLIS = 250;
  private static final long PING_NANOS = TimeUnit.SECONDS.toNanos(10);
  /** Any read but the wait for notifications (which sets its own): a paused server breaks the session. */
  private static final int READ_LIMIT_MILLIS = 10_000;

  /** Opens a new connection outside any pool. */
  interface Opener {
    Connection open() throws SQLException;
  }

  private final Opener opener;
  private final PostgresDialect dialect;
  private volatile @Nullable Connection connection;
  private volatile int ownReadTimeout;
  private long lastUse;

  PgListener(Opener opener, PostgresDialect dialect, Waiters waiters, Consumer<String> released,
      String description, String clientId, Ticker ticker) {
    super(waiters, released, description, clientId, ticker);
    this.lastUse = ticker.read();
    this.opener = opener;
    this.dialect = dialect;
  }

  @Override
  void connect() throws SQLException {
    Connection c = opener.open();
    try {
      c.setAutoCommit(true);
      ownReadTimeout = c.getNetworkTimeout();
      c.setNetworkTimeout(Runnable::run, READ_LIMIT_MILLIS);
      try (Statement s = c.createStatement()) {
        s.execute(PostgresDialect.listenSql(id));
      }
      connection = c;
    } catch (SQLException | RuntimeException e) {
      close(c);
      throw e;
    }
  }

  @Override
  void step() throws SQLException {
    Connection c = connection();
    PGNotification[] notes = c.unwrap(PGConnection.class).getNotifications(READ_MILLIS);
    if (notes != null) {
      for (PGNotification n : notes) {
        if (id.equals(n.getName()) && waiters.disarmName(n.getParameter())) {
          released.accept(n.getParameter());
        }
      }
    }
    if (ticker.read() - lastUse > PING_NANOS) {
      // A peer that died without a reset is silent; a query proves the session is alive.
      try (Statement s = c.createStatement()) {
        s.setQueryTimeout(5);
        s.execute("SELECT 1");
      }
      lastUse = ticker.read();
    }
  }

  /**
   * Also wakes every waiter when rows are missing: a release that dequeued one sends its notice
   * with the delete, but rows lost with a re-made table send none, and a waiter that believes
   * itself queued never queues again. A waiter woken for nothing just retries and keeps its place.
   */
  @Override
  void beat() throws SQLException {
    int armed = waiters.snapshot().size();
    if (dialect.heartbeat(connection(), id, PURGE.toNanos() / 1000) < armed) {
      wakeAll();
    }
    lastUse = ticker.read();
  }

  /** The LISTEN connection; null only once close() dropped it, and the failure then ends the loop. */
  private Connection connection() throws SQLException {
    Connection c = connection;
    if (c == null) {
      throw new SQLException("the LISTEN connection of inbox " + id + " is closed");
    }
    return c;
  }

  @Override
  void recovered() {
    wakeAll();
  }

  @Override
  void abortRead() {
    Connection c = connection;
    if (c != null) {
      try {
        c.abort(Runnable::run);
      } catch (SQLException | RuntimeException e) {
        // Already broken; the thread ends at its next read.
      }
    }
  }

  @Override
  void disconnect() {
    Connection c = connection;
    connection = null;
    close(c);
  }

  /** Closes {@code c}, with the read timeout it came with, should it go back to a pool. */
  private void close(@Nullable Connection c) {
    if (c != null) {
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
}
