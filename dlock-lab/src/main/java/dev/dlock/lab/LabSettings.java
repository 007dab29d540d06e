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
