package dev.dlock.lab;

/**
 * What the runner knows of one run apart from its events: which scheme, fault and workload, and
 * when it started and ended. Kept apart from the events so the checker needs no file layout.
 *
 * @param scheme     the scheme id, e.g. {@code S7}
 * @param fault      the fault id, e.g. {@code F2}
 * @param workload   {@code critical}, {@code flash} or {@code readwrite}
 * @param run        the run's number within its scheme and fault, from 1
 * @param startNanos {@link System#nanoTime()} when the run started
 * @param endNanos   {@link System#nanoTime()} when the run ended
 * @param leaseNanos the lease the workers asked for
 * @param stock      the flash workload's starting stock, {@code -1} for other workloads
 * @param stockLeft  the flash workload's stock at the end, {@code -1} for other workloads
 */
public record RunInfo(String scheme, String fault, String workload, int run, long startNanos,
    long endNanos, long leaseNanos, int stock, int stockLeft) {

  /** Checks the values that the checker divides by or compares. */
  public RunInfo {
    if (scheme == null || scheme.isEmpty()) {
      throw new IllegalArgumentException("scheme must be named, got " + scheme);
    }
    if (fault == null || fault.isEmpty()) {
      throw new IllegalArgumentException("fault must be named, got " + fault);
    }
    if (endNanos < startNanos) {
      throw new IllegalArgumentException("endNanos " + endNanos + " is before startNanos " + startNanos);
    }
  }

  /** Whether this run sold stock: the flash workload. */
  public boolean flash() {
    return stock >= 0;
  }
}
