package dev.dlock.lab;

import java.time.Duration;

/**
 * How every run of a lab session is shaped: how many workers, for how long, with which lease,
 * and when the fault comes.
 *
 * @param workers  worker processes per run
 * @param duration how long the workers loop after GO
 * @param lease    the lease asked of every scheme; pauses last {@link #pause()}, well past it
 * @param work     the time a worker spends inside its critical section
 * @param acquireWait how long one acquire may wait before the worker logs a timeout and tries again
 * @param faultAt  when, after GO, the injector starts looking for its moment
 * @param stock    the flash sale's stock
 */
public record LabSettings(int workers, Duration duration, Duration lease, Duration work, Duration acquireWait,
    Duration faultAt, int stock) {

  /** The quick matrix's shape: three workers, four seconds, one-second leases. */
  public static final LabSettings QUICK = new LabSettings(3, Duration.ofSeconds(4), Duration.ofSeconds(1),
      Duration.ofMillis(40), Duration.ofSeconds(1), Duration.ofMillis(700), 100);

  /**
   * The lease of every F4 cell (failover before replication), where the session's lease is shorter.
   * In production a lease (30 s) outlasts a failover (seconds), so the holder of the grant the
   * promoted replica never saw still holds when that replica grants the lock again. The lab's
   * Sentinels take 3.1 to 4 s from the master's kill to the promotion, and the clients reach the
   * promoted replica up to a second (their reconnect period) later; with a 1 s lease dlock's loss
   * deadline tells the holder long before. 7 s, renewed just before the kill, outlasts both with
   * over a second to spare; not longer, since every F4 run lasts a lease past its failover.
   */
  public static final Duration FAILOVER_LEASE = Duration.ofSeconds(7);

  /** Checks every value. */
  public LabSettings {
    if (workers < 2 || workers > 16) {
      throw new IllegalArgumentException("workers must be 2..16, was " + workers);
    }
    positive("duration", duration);
    positive("lease", lease);
    positive("work", work);
    positive("acquireWait", acquireWait);
    positive("faultAt", faultAt);
    if (stock < 1) {
      throw new IllegalArgumentException("stock must be at least 1, was " + stock);
    }
    if (faultAt.compareTo(duration) >= 0) {
      throw new IllegalArgumentException("faultAt must come before the end of the run (" + duration + "), was " + faultAt);
    }
  }

  /**
   * The settings of one cell: these, but for an F4 cell with a lease of at least
   * {@link #FAILOVER_LEASE}.
   */
  public LabSettings forCell(CellSpec cell) {
    if (!cell.fault().equals("F4") || lease.compareTo(FAILOVER_LEASE) >= 0) {
      return this;
    }
    return new LabSettings(workers, duration, FAILOVER_LEASE, work, acquireWait, faultAt, stock);
  }

  /**
   * The ZooKeeper session of the F6-maj cell on the ensemble, where the holder keeps its server and
   * the leader and must keep its lock: four leases rather than one. Why: the client counts a hold
   * valid for two fifths of its session after each renewal's send, so with a one-lease session a
   * stall of the machine of a quarter lease (a 2-core CI runner under load) cost the lock now and
   * then, which says nothing of the cut; with four leases a stall must last about a lease. The cells
   * whose claims rest on a session running out (F5, F5-holder, F6-min) keep the one-lease session.
   */
  public Duration majoritySession() {
    return lease.multipliedBy(4);
  }

  /** How long a pause (of a holder or of the server) lasts: two leases, well past the first. */
  public Duration pause() {
    return lease.multipliedBy(2);
  }

  private static void positive(String name, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + d);
    }
  }
}
