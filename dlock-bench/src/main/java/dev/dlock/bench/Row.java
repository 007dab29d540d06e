package dev.dlock.bench;

/**
 * One line of the result table.
 *
 * @param opsPerSec lock+unlock operations per second over all threads; handoffs per second in W4
 * @param p50Nanos median time of one operation (one handoff in W4)
 * @param p99Nanos 99th percentile of the same
 * @param allocBytesPerOp bytes allocated per operation by all threads of the JVM (JMH's GC
 *     profiler, {@code gc.alloc.rate.norm}), or NaN where not measured (every workload but W1)
 * @param failure why the measurement failed, or null when it ran
 */
public record Row(Workload workload, String target, int threads, double opsPerSec, double p50Nanos,
    double p99Nanos, double allocBytesPerOp, String failure) {

  /** A measurement that ran, without an allocation figure. */
  public Row(Workload workload, String target, int threads, double opsPerSec, double p50Nanos,
      double p99Nanos) {
    this(workload, target, threads, opsPerSec, p50Nanos, p99Nanos, Double.NaN, null);
  }

  /** This row with the bytes allocated per operation. */
  public Row withAllocation(double bytesPerOp) {
    return new Row(workload, target, threads, opsPerSec, p50Nanos, p99Nanos, bytesPerOp, failure);
  }

  /** A measurement that failed; the table shows it as failed and the run goes on. */
  static Row failed(Workload workload, String target, Throwable why) {
    return new Row(workload, target, workload.threads, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
        String.valueOf(why));
  }
}
