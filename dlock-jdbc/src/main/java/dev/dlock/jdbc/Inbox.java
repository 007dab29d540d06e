package dev.dlock.jdbc;

import dev.dlock.spi.Ticker;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's wake-up thread. Why it exists: a release removes the oldest live waiter of its
 * name from the database's queue, and the client that owned that row must learn of it without
 * polling the lock itself. The inbox id names the client in the queue (and is its LISTEN channel
 * on PostgreSQL). While the client has waiters the thread refreshes their rows every
 * {@link #HEARTBEAT}, so a release skips only the rows of clients that died; it also reports
 * itself unhealthy while it cannot reach the database, and waiters then poll instead.
 */
abstract class Inbox implements AutoCloseable {
  /** A queued waiter unseen for longer belongs to a dead client, and releases skip it. */
  static final Duration LIVE = Duration.ofSeconds(10);
  static final Duration HEARTBEAT = Duration.ofSeconds(2);
  /** Queue rows unseen for longer are deleted by any waiting client's heartbeat. */
  static final Duration PURGE = Duration.ofMinutes(5);
  private static final long RETRY_MILLIS = 1000;
  private static final Logger log = LoggerFactory.getLogger(Inbox.class);

  private static final SecureRandom RANDOM = new SecureRandom();

  /** "dlock_" and 24 hex digits: unique among all clients, and a plain SQL identifier. */
  final String id = newId();
  final Waiters waiters;
  final Consumer<String> released;
  final String description;
  private final Thread thread;
  final Ticker ticker;
  private long lastBeat;
  private volatile boolean healthy;
  volatile boolean closed;

  Inbox(Waiters waiters, Consumer<String> released, String description, String clientId, Ticker ticker) {
    this.waiters = waiters;
    this.ticker = ticker;
    this.lastBeat = ticker.read();
    this.released = released;
    this.description = description;
    this.thread = new Thread(this::loop, "dlock-inbox-" + clientId);
    thread.setDaemon(true);
  }

  private static String newId() {
    byte[] bytes = new byte[12];
    RANDOM.nextBytes(bytes);
    return "dlock_" + HexFormat.of().formatHex(bytes);
  }

  /** Connects before returning, so every release after this call can reach this client. */
  final void start() throws SQLException {
    connect();
    healthy = true;
    thread.start();
  }

  /** False while the database is unreachable: waiters then poll. */
  final boolean healthy() {
    return healthy && !closed;
  }

  /** Called after a waiter took a place in the queue. */
  void nudge() {}

  /** Opens what the thread reads from. */
  abstract void connect() throws SQLException;

  /** Waits a little for wake-ups and delivers them. */
  abstract void step() throws SQLException, InterruptedException;

  /** Refreshes this client's queue rows and purges long-dead ones. */
  abstract void beat() throws SQLException;

  /** Drops what {@link #connect} opened, after a failure or on close. */
  abstract void disconnect();

  /** Ends a blocking read of the thread at once, on close. */
  void abortRead() {}

  /** After an outage: wake-ups may have been missed, so every waiter looks again. */
  void recovered() {}

  private void loop() {
    while (!closed) {
      try {
        if (!healthy) {
          connect();
          healthy = true;
          log.info("dlock: the inbox of {} is connected again", description);
          recovered();
        }
        step();
        if (!waiters.isEmpty() && ticker.read() - lastBeat > HEARTBEAT.toNanos()) {
          beat();
          lastBeat = ticker.read();
        }
      } catch (InterruptedException e) {
        break;
      } catch (SQLException | RuntimeException e) {
        if (closed) {
          break;
        }
        if (healthy) {
          log.warn("dlock: the inbox of {} failed; its waiters poll until it reconnects: {}",
              description, Database.oneLine(e));
        }
        healthy = false;
        disconnect();
        try {
          Thread.sleep(RETRY_MILLIS);
        } catch (InterruptedException stop) {
          break;
        }
      }
    }
    disconnect();
  }

  /** Wakes every name still waited on, and forgets their places. */
  final void wakeAll() {
    for (String name : waiters.names()) {
      if (waiters.disarmName(name)) {
        released.accept(name);
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    abortRead();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(2));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    disconnect();
  }
}
