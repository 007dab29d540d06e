package dev.dlock.jdbc;

import dev.dlock.spi.Ticker;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The inbox where the database cannot notify (MariaDB, MySQL, H2): one query per round for all of
 * this client's queue rows, and a row that is gone means a release dequeued that waiter. Why one
 * poller per client rather than each waiter polling the lock: a release then wakes exactly one
 * waiter, the oldest, and the cost is one indexed query per round whatever the number of waiters.
 * The round starts at 10 ms after a waiter queues and stretches to a tenth of the time waited, at
 * most 250 ms, so a short wait ends quickly and a long one costs little; no query runs while
 * nobody waits.
 */
final class InboxPoller extends Inbox {
  private static final long MIN_ROUND_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  private static final long MAX_ROUND_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
  private static final long IDLE_MILLIS = 500;

  private final Database db;
  private final Dialect dialect;
  private final Object signal = new Object();

  InboxPoller(Database db, Dialect dialect, Waiters waiters, Consumer<String> released,
      String clientId, Ticker ticker) {
    super(waiters, released, db.description(), clientId, ticker);
    this.db = db;
    this.dialect = dialect;
  }

  @Override
  void nudge() {
    synchronized (signal) {
      signal.notifyAll();
    }
  }

  @Override
  void connect() {
    // Uses the pool; nothing to open.
  }

  @Override
  @SuppressWarnings("WaitNotInLoop") // step() is the loop: the caller calls it again
  void step() throws InterruptedException {
    if (waiters.isEmpty()) {
      synchronized (signal) {
        if (waiters.isEmpty()) {
          signal.wait(IDLE_MILLIS);
        }
      }
      return;
    }
    long round = Math.max(MIN_ROUND_NANOS, Math.min(MAX_ROUND_NANOS, waiters.nanosSinceLastArmed() / 10));
    TimeUnit.NANOSECONDS.sleep(round);
    // Snapshot first: a row is committed before its owner is recorded, and an owner is forgotten
    // before its own grant or cancel deletes its row, so a missing row here is a wake-up.
    Map<String, String> armed = waiters.snapshot();
    if (armed.isEmpty()) {
      return;
    }
    Set<String> queued = db.run("read the wake-ups of inbox " + id, c -> dialect.inboxOwners(c, id));
    armed.forEach((owner, name) -> {
      if (!queued.contains(owner) && waiters.disarm(owner)) {
        released.accept(name);
      }
    });
  }

  @Override
  void beat() {
    db.run("refresh the waiters of inbox " + id, c -> dialect.heartbeat(c, id, PURGE.toNanos() / 1000));
  }

  @Override
  void disconnect() {
    // Uses the pool; nothing to close.
  }
}
