package dev.dlock.jdbc;

import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The inbox where the database cannot notify (MariaDB, MySQL, H2): one query per round for all of
 * this client's queue rows, and a row that is gone means a release dequeued that waiter. Why one
 * poller per client rather than each waiter polling the lock: a release then wakes exactly one
 * waiter, the oldest, and the cost is one indexed query per round whatever the number of waiters.
 *
 * <p>Where the database has a {@link Bell} (MariaDB, H2), the releaser rings it after its dequeue
 * and the round ends at once, so a waiter wakes when the lock is released; the rounds are then
 * {@link #fallbackRound} long, as they only catch a lost ring. Without a bell, or once a round
 * found a wake-up that no ring announced (a releaser that cannot ring this client), a round
 * starts at 10 ms after a waiter queues and stretches to a tenth of the time waited, at most
 * 250 ms, so a short wait ends quickly and a long one costs little; the next ring restores the
 * long rounds. No query runs while nobody waits.
 */
final class InboxPoller extends Inbox {
  /** The round while rings arrive: a lost ring costs at most this. */
  static final Duration FALLBACK_ROUND = Duration.ofSeconds(1);
  private static final long MIN_ROUND_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  private static final long MAX_ROUND_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
  private static final long IDLE_MILLIS = 500;

  private final Database db;
  private final Dialect dialect;
  private final Bell bell;
  private final long fallbackRound;
  private final Object signal = new Object();
  // Written and read by the inbox thread only.
  private boolean ringsArrive;

  /**
   * @param bell          how rings reach this inbox, {@link Bell#NONE} if they cannot
   * @param fallbackRound the round while rings arrive
   */
  InboxPoller(Database db, Dialect dialect, Bell bell, Duration fallbackRound, Waiters waiters,
      Consumer<String> released, String clientId, Ticker ticker) {
    super(waiters, released, db.description(), clientId, ticker);
    this.db = db;
    this.dialect = dialect;
    this.bell = bell;
    this.fallbackRound = fallbackRound.toNanos();
    this.ringsArrive = bell.rings();
  }

  @Override
  void nudge() {
    synchronized (signal) {
      signal.notifyAll();
    }
  }

  @Override
  void connect() throws java.sql.SQLException {
    bell.open(id);
  }

  @Override
  @SuppressWarnings("WaitNotInLoop") // step() is the loop: the caller calls it again
  void step() throws java.sql.SQLException, InterruptedException {
    if (waiters.isEmpty()) {
      synchronized (signal) {
        if (waiters.isEmpty()) {
          signal.wait(IDLE_MILLIS);
        }
      }
      return;
    }
    long round = ringsArrive ? fallbackRound
        : Math.max(MIN_ROUND_NANOS, Math.min(MAX_ROUND_NANOS, waiters.nanosSinceLastArmed() / 10));
    boolean rung = bell.await(round, waiters.snapshot().size());
    // Snapshot first: a row is committed before its owner is recorded, and an owner is forgotten
    // before its own grant or cancel deletes its row, so a missing row here is a wake-up.
    Map<String, String> armed = waiters.snapshot();
    if (armed.isEmpty()) {
      return;
    }
    Set<String> queued = db.run("read the wake-ups of inbox " + id, c -> dialect.inboxOwners(c, id));
    boolean woken = false;
    for (Map.Entry<String, String> e : armed.entrySet()) {
      if (!queued.contains(e.getKey()) && waiters.disarm(e.getKey())) {
        released.accept(e.getValue());
        woken = true;
      }
    }
    if (rung) {
      ringsArrive = bell.rings();
    } else if (woken) {
      ringsArrive = false; // a wake-up that no ring announced
    }
  }

  @Override
  void beat() {
    db.run("refresh the waiters of inbox " + id, c -> dialect.heartbeat(c, id, PURGE.toNanos() / 1000));
  }

  @Override
  void abortRead() {
    bell.abort();
  }

  @Override
  void disconnect() {
    bell.close();
  }
}
