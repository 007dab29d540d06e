package dev.dlock.bench;

import dev.dlock.bench.scale.ResultsFile;
import dev.dlock.bench.scale.ScaleMain;
import dev.dlock.bench.scale.Table;
import dev.dlock.bench.targets.Target;
import dev.dlock.bench.targets.Targets;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.Lock;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./bench interleave}: W1 (one thread, one client, one key, uncontended) on several targets
 * in one JVM, one lock+unlock on each in turn, cycle by cycle, with the first of each turn
 * rotating. Why: the JMH runs take the targets one after the other, minutes apart, and on a shared
 * machine a loopback round trip can change speed threefold between them; taken in turn, every
 * target meets the same machine, so the ratio of two targets holds even while their own times
 * move. Prints, per target, the p50 of each block and its fraction of the first target's speed
 * (the first's p50 over its own), and appends the table to the bench's Markdown results. Each
 * server is its own process, which the machine may run on another CPU than the next target's;
 * pinned to one CPU ({@code taskset}, which the servers the bench starts inherit), the blocks
 * agree (dlock-bench's README says more).
 */
public final class Interleave {
  private Interleave() {}

  /** The options, as picocli reads them. */
  @Command(name = "./bench interleave", sortOptions = false, usageHelpWidth = 100,
      description = "W1 on several targets in turn, cycle by cycle, in one JVM; prints each one's p50"
          + " and its fraction of the first target's speed (progress on stderr).")
  static final class Options {
    @Option(names = "--targets", split = ",", paramLabel = "T", required = true,
        description = "two or more targets; the first is the reference, such as floor-redis")
    List<String> targets;

    @Option(names = "--blocks", paramLabel = "N", description = "blocks, a p50 each (default 8)")
    int blocks = 8;

    @Option(names = "--cycles", paramLabel = "N", description = "lock+unlock cycles per target and block (default 3000)")
    int cycles = 3_000;

    @Option(names = "--warmup", paramLabel = "N", description = "cycles per target before the first block (default 2000)")
    int warmup = 2_000;

    @Mixin
    ResultsFile results = new ResultsFile();

    void check() {
      if (targets.size() < 2) {
        throw new IllegalArgumentException("--targets takes two or more targets, not " + targets);
      }
      targets.forEach(Targets::check);
      if (blocks < 1 || cycles < 1 || warmup < 0) {
        throw new IllegalArgumentException("--blocks and --cycles take counts of 1 or more, --warmup of 0 or"
            + " more, not " + blocks + ", " + cycles + ", " + warmup);
      }
    }
  }

  /**
   * Runs {@code ./bench interleave ARGS}.
   *
   * @param defaultOut the bench's Markdown results, appended to unless {@code --out} names another
   * @return the exit status: 0, 64 for a bad command line, 1 if a target failed
   */
  public static int run(String[] args, Path defaultOut, PrintStream out, PrintStream progress) {
    Options o = new Options();
    CommandLine cl = new CommandLine(o);
    try {
      cl.parseArgs(args);
      if (o.results.help()) {
        out.println(cl.getUsageMessage());
        return 0;
      }
      o.check();
    } catch (CommandLine.ParameterException | IllegalArgumentException e) {
      progress.println("bench interleave: " + e.getMessage());
      progress.println(cl.getUsageMessage());
      return 64;
    }
    long[][] p50s;
    try {
      p50s = measure(o, progress);
    } catch (Exception e) {
      progress.println("bench interleave: failed: " + e);
      e.printStackTrace(progress);
      return 1;
    }
    Table table = table(o.targets, p50s);
    out.print(table.text());
    String section = "\n## W1, interleaved\n\n" + ScaleMain.stamp() + "; `./bench interleave "
        + String.join(" ", args) + "`. p50 of each target over blocks of " + o.cycles + " cycles each, taken"
        + " in turn; of " + o.targets.get(0) + ": its p50 over the target's, per block.\n\n" + table.markdown();
    if (!o.results.append(defaultOut, section, "bench interleave", progress)) {
      return 1;
    }
    return 0;
  }

  /** The p50 in nanoseconds of each target (first index) in each block (second). */
  static long[][] measure(Options o, PrintStream progress) throws Exception {
    int n = o.targets.size();
    List<Target> opened = new ArrayList<>();
    try {
      Lock[] locks = new Lock[n];
      for (int i = 0; i < n; i++) {
        Target t = Targets.create(o.targets.get(i));
        opened.add(t); // torn down below even if its setUp fails part way
        t.setUp(1);
        locks[i] = t.lock(0, "bench:interleave");
      }
      progress.printf("bench: interleave, %d cycles per target to warm up ...%n", o.warmup);
      turns(locks, o.warmup, new long[n][o.warmup]);
      long[][] p50s = new long[n][o.blocks];
      long[][] times = new long[n][o.cycles];
      for (int b = 0; b < o.blocks; b++) {
        turns(locks, o.cycles, times);
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < n; i++) {
          Arrays.sort(times[i]);
          p50s[i][b] = times[i][o.cycles / 2];
          line.append(i == 0 ? " " : "; ").append(o.targets.get(i))
              .append(String.format(Locale.ROOT, " %.1f us", p50s[i][b] / 1e3))
              .append(i == 0 ? "" : " (" + ratio(p50s[0][b], p50s[i][b]) + ")");
        }
        progress.printf("bench: interleave block %d/%d:%s%n", b + 1, o.blocks, line);
      }
      return p50s;
    } finally {
      for (Target t : opened) {
        try {
          t.tearDown();
        } catch (Exception e) {
          // Reported, not thrown: it would hide why the run ended, and the other targets still close.
          progress.printf("bench: closing %s failed: %s%n", t.name(), e);
        }
      }
    }
  }

  /** {@code cycles} turns; in turn k each lock does one lock+unlock, starting with lock k mod n. */
  private static void turns(Lock[] locks, int cycles, long[][] times) {
    int n = locks.length;
    for (int k = 0; k < cycles; k++) {
      for (int j = 0; j < n; j++) {
        int i = (j + k) % n;
        long start = System.nanoTime();
        locks[i].lock();
        locks[i].unlock();
        times[i][k] = System.nanoTime() - start;
      }
    }
  }

  /** Per target: the median and range of its block p50s, and of its fraction of the first's speed. */
  static Table table(List<String> targets, long[][] p50s) {
    String first = targets.get(0);
    Table t = new Table("target", "p50, median of blocks", "p50 range", "of " + first + ", median",
        "of " + first + ", range");
    for (int i = 0; i < targets.size(); i++) {
      double[] p = Arrays.stream(p50s[i]).mapToDouble(v -> v / 1e3).sorted().toArray();
      double[] of = new double[p50s[i].length];
      for (int b = 0; b < of.length; b++) {
        of[b] = (double) p50s[0][b] / p50s[i][b];
      }
      Arrays.sort(of);
      t.add(targets.get(i), String.format(Locale.ROOT, "%.1f us", median(p)),
          String.format(Locale.ROOT, "%.1f-%.1f us", p[0], p[p.length - 1]),
          String.format(Locale.ROOT, "%.2f", median(of)),
          String.format(Locale.ROOT, "%.2f-%.2f", of[0], of[of.length - 1]));
    }
    return t;
  }

  private static String ratio(long first, long other) {
    return String.format(Locale.ROOT, "%.2f", (double) first / other);
  }

  private static double median(double[] sorted) {
    int m = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
  }
}
