package dev.dlock.bench;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Control;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.ScalarResult;

/**
 * The throughput of the multi-thread workloads (W2, W2-1c, W3): the lock+unlock cycles that all
 * threads completed in one common wall-clock window of a JMH iteration, divided by that window.
 *
 * <p>Why not JMH's own Throughput score: it is the sum over threads of each thread's ops divided by
 * that thread's own measured time, and each thread starts measuring when its first call after the
 * warm-up returns. Under an unfair lock a thread starved through the warm-up enters measurement
 * late, barges through many cycles in what is left of the window, and its rate counts as if it had
 * run the whole time: Spring's RedisLockRegistry, which cannot complete more than about 10,000
 * cycles a second on one client (two round trips under a local lock), scored 89,000 in W2-1c.
 *
 * <p>How: JMH stays (forks, warm-up, iterations, the GC profiler, SampleTime), and the benchmark
 * methods report to this class through JMH's {@link Control}, whose {@code startMeasurement} is set
 * by the first thread to enter the measured phase and {@code stopMeasurement} by the first to leave
 * it. On entry to each call the first thread that sees either flag stamps the window's start or end
 * ({@link #enter}); a cycle counts if it completes between the two flags ({@link #completed}), on a
 * {@link LongAdder}, so the count adds no shared write. JMH runs this class as a profiler in the
 * JVM that runs the benchmark (the fork): it clears the window before each iteration and, after
 * all threads have finished it, hands back the count over the window as the secondary result
 * {@value #RESULT}, averaged over the iterations like JMH's own score. The state is static because
 * JMH makes the profiler itself; one benchmark runs at a time in a JVM.
 */
public final class CommonWindow implements InternalProfiler {
  /** The name of the secondary result: cycles per second over the common window. */
  static final String RESULT = "window.ops";

  private static final long UNSET = Long.MIN_VALUE;
  private static final LongAdder CYCLES = new LongAdder();
  private static final AtomicLong START = new AtomicLong(UNSET);
  private static final AtomicLong END = new AtomicLong(UNSET);

  /** Called first in every benchmark call: stamps the window's start and end as the flags turn. */
  static void enter(Control control) {
    if (control.startMeasurement && START.get() == UNSET) {
      START.compareAndSet(UNSET, System.nanoTime());
    }
    if (control.stopMeasurement && END.get() == UNSET) {
      END.compareAndSet(UNSET, System.nanoTime());
    }
  }

  /** Called last in every benchmark call, once its lock+unlock completed. */
  static void completed(Control control) {
    if (control.startMeasurement && !control.stopMeasurement) {
      CYCLES.increment();
    }
  }

  @Override
  public String getDescription() {
    return "lock+unlock cycles of all threads over one common wall-clock window per iteration";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    CYCLES.reset();
    START.set(UNSET);
    END.set(UNSET);
  }

  @Override
  public List<ScalarResult> afterIteration(BenchmarkParams benchmarkParams,
      IterationParams iterationParams, IterationResult result) {
    long now = System.nanoTime();
    long start = START.get();
    // No call saw stopMeasurement only if every thread left the measured phase at the same instant,
    // so that none came back for the warm-down; then now is later than the true end, and the rate
    // comes out low, never high.
    long end = END.get() == UNSET ? now : END.get();
    double perSecond = start == UNSET || end <= start ? Double.NaN : CYCLES.sum() * 1e9 / (end - start);
    return List.of(new ScalarResult(RESULT, perSecond, "ops/s", AggregationPolicy.AVG));
  }
}
