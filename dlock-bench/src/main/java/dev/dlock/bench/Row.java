package dev.dlock.bench;

/**
 * One line of the result table.
 *
 * @param opsPerSec lock+unlock operations per second over all threads; handoffs per second in W4
 * @param p50Nanos median time of one operation (one handoff in W4)
 * @param p99Nanos 99th percentile of the same
 */
public record Row(Workload workload, String target, int threads, double opsPerSec, double p50Nanos,
    double p99Nanos) {}
