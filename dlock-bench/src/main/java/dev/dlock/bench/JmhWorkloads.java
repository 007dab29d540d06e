package dev.dlock.bench;

import dev.dlock.bench.targets.Targets;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.Statistics;

/**
 * Runs W1 to W3 through JMH's Runner, one workload and target at a time, and reads back one row. W1
 * also runs JMH's GC profiler, for the bytes allocated per lock+unlock: one thread, no contention,
 * so the figure is the cost of the path itself. W1's ops/s is JMH's Throughput score (one thread,
 * so its own rate is the rate); the sixteen-thread workloads take theirs from {@link CommonWindow},
 * the cycles of all threads over one common window, since JMH's score sums per-thread rates.
 */
final class JmhWorkloads {
  /** The GC profiler's bytes allocated per operation, over all threads of the JVM. */
  static final String ALLOC_NORM = "gc.alloc.rate.norm";

  private JmhWorkloads() {}

  static Row run(Workload workload, String target, Settings s) throws RunnerException {
    // Starts what the target needs (a database) here, so every fork shares this one.
    List<String> forkArgs = s.forks() > 0 ? Targets.create(target).forkJvmArgs() : List.of();
    ChainedOptionsBuilder options = new OptionsBuilder()
        .include(Pattern.quote(LockBench.class.getName() + "." + workload.benchmarkMethod()) + "$")
        .param("target", target)
        .forks(s.forks())
        .warmupIterations(s.warmupIterations())
        .warmupTime(s.warmupTime())
        .measurementIterations(s.iterations())
        .measurementTime(s.time())
        .verbosity(s.verbose() ? VerboseMode.NORMAL : VerboseMode.SILENT)
        .jvmArgsAppend(forkArgs.toArray(String[]::new))
        .shouldFailOnError(true);
    if (workload == Workload.W1) {
      options.addProfiler(GCProfiler.class);
    } else {
      options.addProfiler(CommonWindow.class);
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    double opsPerSec = Double.NaN;
    double p50 = Double.NaN;
    double p99 = Double.NaN;
    double alloc = Double.NaN;
    int threads = workload.threads;
    for (RunResult r : results) {
      BenchmarkParams params = r.getParams();
      double nanosPerUnit = params.getTimeUnit().toNanos(1);
      threads = params.getThreads();
      switch (params.getMode()) {
        case Throughput -> {
          opsPerSec = workload == Workload.W1
              ? r.getPrimaryResult().getScore() * 1e9 / nanosPerUnit
              : windowScore(r, workload, target);
          Result<?> norm = r.getSecondaryResults().get(ALLOC_NORM);
          alloc = norm == null ? Double.NaN : norm.getScore();
        }
        case SampleTime -> {
          Statistics stats = r.getPrimaryResult().getStatistics();
          p50 = stats.getPercentile(50) * nanosPerUnit;
          p99 = stats.getPercentile(99) * nanosPerUnit;
        }
        default -> { }
      }
    }
    if (Double.isNaN(opsPerSec) || Double.isNaN(p50)) {
      throw new IllegalStateException("JMH returned no result for " + workload + " on " + target);
    }
    return new Row(workload, target, threads, opsPerSec, p50, p99).withAllocation(alloc);
  }

  private static double windowScore(RunResult r, Workload workload, String target) {
    Result<?> window = r.getSecondaryResults().get(CommonWindow.RESULT);
    if (window == null) {
      throw new IllegalStateException("JMH returned no " + CommonWindow.RESULT + " for " + workload + " on " + target);
    }
    return window.getScore();
  }
}
