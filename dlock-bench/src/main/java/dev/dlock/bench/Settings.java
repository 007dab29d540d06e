package dev.dlock.bench;

import dev.dlock.bench.targets.Targets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * What one {@code ./bench} run does, from its command line. The iteration flags use JMH's own
 * names and also size W4: its warm-up lasts {@code -wi × -w} and its measurement {@code -i × -r}.
 */
public record Settings(List<Workload> workloads, List<String> targets, String baseline, int forks,
    int warmupIterations, TimeValue warmupTime, int iterations, TimeValue time, boolean verbose,
    Path out, boolean help) {

  static final String USAGE = String.join("\n",
      "usage: ./bench [options]",
      "  --quick               a few seconds in all, for a smoke run (numbers are rough)",
      "  --targets a,b,...     targets to run, in table order (default " + String.join(",", Targets.defaults()) + ";",
      "                        known: " + String.join(",", Targets.names()) + ";",
      "                        " + Targets.JDBC + " = the JDBC targets, on one embedded PostgreSQL;",
      "                        " + Targets.REDIS + " = the Redis targets, on one embedded redis-server;",
      "                        " + Targets.ZOOKEEPER + " = the ZooKeeper targets, on one embedded ZooKeeper;",
      "                        " + Targets.REDIS_HA + " = Sentinel and Redlock targets, on embedded replicated redis)",
      "  --baseline NAME       the target the ratio column divides by (default the first target)",
      "  --workloads W1,...    workloads to run (default W1,W2,W3,W4)",
      "  -f N                  JMH forks per benchmark (default 1, --quick 0 = in this JVM)",
      "  -wi N  -w TIME        warm-up iterations and their time (default 10 x 2s: 16 threads on two",
      "                        cores keep the JIT compiler busy that long before numbers settle)",
      "  -i N   -r TIME        measured iterations and their time (default 3 x 1s)",
      "                        TIME as JMH takes it: 500ms, 2s; W4 runs wi*w then i*r",
      "  --out FILE            Markdown copy of the table (default dlock-bench/target/bench-results.md)",
      "  -v, --verbose         show JMH's own output",
      "  -h, --help            this text");

  /** W4's warm-up time. */
  Duration handoffWarmup() {
    return Duration.ofNanos(warmupTime.convertTo(TimeUnit.NANOSECONDS) * warmupIterations);
  }

  /** W4's measured time. */
  Duration handoffMeasurement() {
    return Duration.ofNanos(time.convertTo(TimeUnit.NANOSECONDS) * iterations);
  }

  /** One line for the results file. */
  String describe() {
    return String.format("forks %d, warm-up %d x %s, measurement %d x %s per JMH mode", forks,
        warmupIterations, warmupTime, iterations, time);
  }

  /**
   * Parses a command line.
   *
   * @throws IllegalArgumentException saying what is wrong with it
   */
  public static Settings parse(String... args) {
    boolean quick = Arrays.asList(args).contains("--quick");
    List<Workload> workloads = List.of(Workload.values());
    List<String> targets = Targets.defaults();
    String baseline = null;
    int forks = quick ? 0 : 1;
    int wi = quick ? 1 : 10;
    TimeValue w = quick ? TimeValue.milliseconds(100) : TimeValue.seconds(2);
    int i = quick ? 1 : 3;
    TimeValue r = quick ? TimeValue.milliseconds(200) : TimeValue.seconds(1);
    boolean verbose = false;
    boolean help = false;
    Path out = defaultOut();
    for (int k = 0; k < args.length; k++) {
      String a = args[k];
      switch (a) {
        case "--quick" -> { }
        case "--targets" -> targets = targets(value(args, ++k, a));
        case "--baseline" -> baseline = Targets.check(value(args, ++k, a));
        case "--workloads" -> workloads = workloads(value(args, ++k, a));
        case "-f" -> forks = count(value(args, ++k, a), a);
        case "-wi" -> wi = count(value(args, ++k, a), a);
        case "-w" -> w = time(value(args, ++k, a), a);
        case "-i" -> i = count(value(args, ++k, a), a);
        case "-r" -> r = time(value(args, ++k, a), a);
        case "--out" -> out = Path.of(value(args, ++k, a));
        case "-v", "--verbose" -> verbose = true;
        case "-h", "--help" -> help = true;
        default -> throw new IllegalArgumentException("unknown option '" + a + "'");
      }
    }
    if (i == 0) {
      throw new IllegalArgumentException("-i must be at least 1");
    }
    if (baseline == null) {
      baseline = targets.get(0);
    } else if (!targets.contains(baseline)) {
      throw new IllegalArgumentException("--baseline " + baseline + " is not among the targets run: "
          + String.join(",", targets));
    }
    return new Settings(workloads, targets, baseline, forks, wi, w, i, r, verbose, out, help);
  }

  private static String value(String[] args, int k, String option) {
    if (k >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[k];
  }

  private static List<String> targets(String csv) {
    List<String> names = new ArrayList<>();
    for (String name : csv.split(",")) {
      for (String target : Targets.expand(name.trim())) {
        if (!names.contains(target)) {
          names.add(target);
        }
      }
    }
    return List.copyOf(names);
  }

  private static List<Workload> workloads(String csv) {
    return Arrays.stream(csv.split(",")).map(Workload::parse).sorted().distinct().toList();
  }

  private static int count(String s, String option) {
    try {
      int n = Integer.parseInt(s);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // falls through to the message below
    }
    throw new IllegalArgumentException(option + " takes a count of 0 or more, not '" + s + "'");
  }

  private static TimeValue time(String s, String option) {
    try {
      return TimeValue.fromString(s);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + " takes a time such as 500ms or 2s, not '" + s + "'");
    }
  }

  /**
   * The build's target directory: the jar's folder when run from the shaded jar, the parent of the
   * classes folder when run from the build, so the file lands in the same place from any cwd.
   */
  private static Path defaultOut() {
    try {
      Path code = Path.of(Settings.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return code.getParent().resolve("bench-results.md");
    } catch (Exception e) {
      return Path.of("dlock-bench", "target", "bench-results.md");
    }
  }
}
