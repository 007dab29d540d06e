package dev.dlock.bench;

import dev.dlock.bench.scale.ScaleMain;
import dev.dlock.bench.targets.Targets;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The {@code ./bench} entry point: runs the chosen workloads on the chosen targets, prints one
 * table to stdout (progress goes to stderr, so stdout can be piped) and writes it as Markdown.
 * Exit status 64 for a bad command line, 1 if a benchmark failed (the others still run and print).
 */
public final class BenchMain {
  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("interleave")) {
      System.exit(Interleave.run(Arrays.copyOfRange(args, 1, args.length), Settings.defaultOut(), System.out,
          System.err));
      return;
    }
    if (args.length > 0 && args[0].equals("scale")) {
      System.exit(ScaleMain.run(Arrays.copyOfRange(args, 1, args.length), Settings.defaultOut(), System.out,
          System.err));
      return;
    }
    Settings settings;
    try {
      settings = Settings.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("bench: " + e.getMessage());
      System.err.println(Settings.usage());
      System.exit(64);
      return;
    }
    if (settings.help()) {
      System.out.println(Settings.usage());
      return;
    }
    try {
      long start = System.nanoTime();
      ResultTable table = run(settings, System.err);
      System.out.print(table.text());
      System.out.println(legend(settings));
      write(settings, table);
      Path html = HtmlReport.file(settings.out());
      HtmlReport.write(html, table, settings, legend(settings), now());
      System.err.printf(Locale.ROOT, "bench: done in %.0f s; Markdown in %s, HTML in %s%n",
          (System.nanoTime() - start) / 1e9, settings.out(), html);
      for (Row r : table.rows()) {
        if (r.failure() != null) {
          System.err.printf("bench: %s on %s failed: %s%n", r.workload(), r.target(), r.failure());
        }
      }
      if (table.rows().stream().anyMatch(r -> r.failure() != null)) {
        System.exit(1);
      }
    } catch (Exception e) {
      System.err.println("bench: failed: " + e);
      e.printStackTrace();
      System.exit(1);
    }
  }

  /** Runs every workload on every target, in order, reporting progress to {@code progress}. */
  public static ResultTable run(Settings s, PrintStream progress) throws Exception {
    List<Row> rows = new ArrayList<>();
    for (Workload w : s.workloads()) {
      for (String target : s.targets()) {
        if (!runs(w, target)) {
          continue;
        }
        progress.printf("bench: %s on %s (%s) ...%n", w, target, w.description);
        long start = System.nanoTime();
        Row row;
        try {
          row = w == Workload.W4
              ? Handoff.run(Targets.create(target), s.handoffWarmup(), s.handoffMeasurement())
              : JmhWorkloads.run(w, target, s);
        } catch (Exception | AssertionError e) {
          // One target failing one workload (a peer library giving up, say) must not lose the
          // rest of a long run: the table shows it as failed and the exit status says so.
          progress.printf("bench:   failed: %s%n", e);
          rows.add(Row.failed(w, target, e));
          continue;
        }
        progress.printf(Locale.ROOT, "bench:   %,.0f ops/s, p50 %s, p99 %s (%.1f s)%n",
            row.opsPerSec(), ResultTable.time(row.p50Nanos()), ResultTable.time(row.p99Nanos()),
            (System.nanoTime() - start) / 1e9);
        rows.add(row);
      }
    }
    return new ResultTable(rows, s.baseline());
  }

  /**
   * Whether {@code target} runs {@code w}. Every target but a floor runs everywhere. A backend floor
   * does not queue, so only where threads rarely meet on a key is it fair to it (W1, W3), and in W4
   * if it {@link Targets#handsOff}; the hand-off floor, with no server, only in W2-1c.
   */
  static boolean runs(Workload w, String target) {
    if (!Targets.isFloor(target)) {
      return true;
    }
    if (Targets.isHandoffFloor(target)) {
      return w == Workload.W2_1C;
    }
    return w == Workload.W1 || w == Workload.W3 || (w == Workload.W4 && Targets.handsOff(target));
  }

  /** What the columns mean, below the table. */
  static String legend(Settings s) {
    StringBuilder sb = new StringBuilder();
    for (Workload w : s.workloads()) {
      sb.append(w).append(": ").append(w.description).append('\n');
    }
    sb.append("ops/s: W1, JMH throughput of its one thread; W2, W2-1c and W3, the lock+unlock cycles all threads"
        + " completed in one common wall-clock window per iteration, over that window (JMH's own score sums each"
        + " thread's rate over its own window, which an unfair lock inflates); W4, handoffs per second of the"
        + " two-client ping-pong.\n");
    sb.append("p50/p99: JMH SampleTime of one lock+unlock (W4: unlock to the waiter's lock() returning).\n");
    sb.append("of floor: ops/s over that of the floor of the row's backend (floor-redis, floor-zookeeper,"
        + " floor-pg) in the same workload and run (W4: the floor's p50 over the row's); floors run in W1 and"
        + " W3, and floor-zookeeper in W4. In W2-1c every row's floor is " + Targets.HANDOFF_FLOOR
        + ", a hand-off between the threads of one process.\n");
    sb.append("B/op: bytes allocated per lock+unlock in W1, by all threads of the JVM (JMH -prof gc,"
        + " gc.alloc.rate.norm).\n");
    sb.append(Targets.legend(s.targets()));
    sb.append("Settings: ").append(s.describe()).append(".");
    return sb.toString();
  }

  private static String now() {
    return LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm"));
  }

  private static void write(Settings s, ResultTable table) throws IOException {
    Path out = s.out().toAbsolutePath();
    Files.createDirectories(out.getParent());
    String md = "# dlock bench results\n\n"
        + String.format(Locale.ROOT, "%s, Java %s (%s), %d cores.%n%n",
            now(),
            System.getProperty("java.version"), System.getProperty("java.vm.name"),
            Runtime.getRuntime().availableProcessors())
        + table.markdown() + "\n"
        + legend(s).replace("\n", "  \n") + "\n";
    Files.writeString(out, md);
  }
}
