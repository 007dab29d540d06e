package dev.dlock.jdbc;

import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/**
 * The waiting side of a doorbell: how a client whose queue row a release removed learns of it at
 * once, where the database cannot notify (MariaDB, H2). Why a bell and not only the poller's
 * rounds: a round of 10 to 250 ms is the hand-off's latency. The releaser rings after its dequeue
 * has committed ({@link Dialect#ring}); the inbox thread then reads its queue rows, as a round
 * would, so a ring carries no data and a ring that is lost costs one round, never a waiter.
 */
interface Bell {
  /** No bell: the inbox thread only sleeps out its rounds. */
  Bell NONE = new Bell() {
    @Override
    public boolean rings() {
      return false;
    }

    @Override
    public boolean await(long nanos, int armed) throws InterruptedException {
      TimeUnit.NANOSECONDS.sleep(nanos);
      return false;
    }
  };

  /** False where nothing ever rings, so the inbox keeps its short rounds. */
  default boolean rings() {
    return true;
  }

  /** Makes this client's inbox {@code inbox} reachable by rings. */
  default void open(String inbox) throws SQLException {}

  /**
   * Waits at most {@code nanos} for a ring; true if one came, or if the wait saw at once that
   * fewer than {@code armed} queue rows of the inbox are left (a ring that came before the wait).
   */
  boolean await(long nanos, int armed) throws SQLException, InterruptedException;

  /** Ends a blocking wait at once, on close. */
  default void abort() {}

  /** Undoes {@link #open}. */
  default void close() {}
}
