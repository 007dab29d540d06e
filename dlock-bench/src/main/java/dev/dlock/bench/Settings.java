package dev.dlock.bench;

import dev.dlock.bench.targets.Targets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * What one {@code ./bench} run does, from its command line, parsed by picocli. The iteration flags
 * use JMH's own names and also size W4: its warm-up lasts {@code -wi × -w} and its measurement {@code -i × -r}.
 */
public record Settings(List<Workload> workloads, List<String> targets, String baseline, int forks,
    int warmupIterations, TimeValue warmupTime, int iterations, TimeValue time, boolean verbose,
    Path out, boolean help) {

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

  /** The usage text, as picocli renders it from {@link Options}. */
  static String usage() {
    CommandLine cl = new CommandLine(new Options());
    List<String> footer = new ArrayList<>();
    footer.add("");
    footer.add("Workloads:");
    for (Workload w : Workload.values()) {
      footer.add(String.format("  %-6s %s", w, w.description));
    }
    footer.addAll(List.of(
        "Targets (default " + String.join(",", Targets.defaults()) + "):",
        "  " + String.join(",", Targets.names()),
        "Presets, each on one embedded server: " + Targets.JDBC + " = the JDBC targets on PostgreSQL, "
            + Targets.REDIS + " = the Redis targets, " + Targets.ZOOKEEPER + " = the ZooKeeper targets, "
            + Targets.REDIS_HA + " = Sentinel and Redlock on replicated Redis.",
        "Each server preset includes its backend's floor (" + Targets.FLOOR_PREFIX + "redis, "
            + Targets.FLOOR_PREFIX + "zookeeper, " + Targets.FLOOR_PREFIX + "pg): the fewest round trips"
            + " any lock there needs, no lock logic; run in W1 and W3 only, it gives the \"of floor\" column."
            + " The Redis preset also has " + Targets.FLOOR_PREFIX + "redis-token, that floor with a fencing token.",
        "The scale rows S1 and S2 are a command of their own: ./bench scale --help",
        "W1 on several targets taken in turn, cycle by cycle, in one JVM: ./bench interleave --help"));
    cl.getCommandSpec().usageMessage().footer(footer.toArray(String[]::new));
    return cl.getUsageMessage();
  }

  /**
   * Parses a command line.
   *
   * @throws IllegalArgumentException saying what is wrong with it (picocli's message: it names the
   *     option and the value)
   */
  public static Settings parse(String... args) {
    Options o = new Options();
    try {
      new CommandLine(o).parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    return o.settings();
  }

  /**
   * The options, as picocli reads them. Unset counts and times stay null so that {@code --quick} can
   * choose their defaults after parsing, whatever the order of the flags.
   */
  @Command(name = "./bench", sortOptions = false, usageHelpWidth = 100,
      description = "Runs the workloads on the targets and prints one table (progress on stderr).")
  static final class Options {
    @Option(names = "--quick", description = "a few seconds in all, for a smoke run (numbers are rough)")
    boolean quick;

    @Option(names = "--targets", split = ",", paramLabel = "TARGET", converter = TargetNames.class,
        description = "targets to run, in table order (the known ones and the default are listed below)")
    List<String> targets;

    @Option(names = "--baseline", paramLabel = "NAME", converter = TargetName.class,
        description = "the target the ratio column divides by (default the first target)")
    String baseline;

    @Option(names = "--workloads", split = ",", paramLabel = "W", converter = WorkloadName.class,
        description = "workloads to run (default all: W1,W2,W2-1c,W3,W4; listed below)")
    List<Workload> workloads;

    @Option(names = "-f", paramLabel = "N", description = "JMH forks per benchmark (default 1, --quick 0 = in this JVM)")
    Integer forks;

    @Option(names = "-wi", paramLabel = "N", description = "warm-up iterations (default 10; --quick 1)")
    Integer warmupIterations;

    @Option(names = "-w", paramLabel = "TIME", converter = Time.class, description = "warm-up iteration time "
        + "(default 2s: 16 threads on two cores keep the JIT busy that long; --quick 100ms)")
    TimeValue warmupTime;

    @Option(names = "-i", paramLabel = "N", description = "measured iterations (default 3; --quick 1)")
    Integer iterations;

    @Option(names = "-r", paramLabel = "TIME", converter = Time.class,
        description = "measured iteration time as JMH takes it, 500ms or 2s (default 1s; --quick 200ms);"
            + " W4 runs -wi x -w, then -i x -r")
    TimeValue time;

    @Option(names = "--out", paramLabel = "FILE",
        description = "Markdown copy of the table (default dlock-bench/target/bench-results.md)")
    Path out;

    @Option(names = {"-v", "--verbose"}, description = "show JMH's own output")
    boolean verbose;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
    boolean help;

    Settings settings() {
      int f = orElse(forks, "-f", quick ? 0 : 1);
      int wi = orElse(warmupIterations, "-wi", quick ? 1 : 10);
      int i = orElse(iterations, "-i", quick ? 1 : 3);
      if (i == 0) {
        throw new IllegalArgumentException("-i takes a count of 1 or more, not '0'");
      }
      TimeValue w = warmupTime != null ? warmupTime : quick ? TimeValue.milliseconds(100) : TimeValue.seconds(2);
      TimeValue r = time != null ? time : quick ? TimeValue.milliseconds(200) : TimeValue.seconds(1);
      // The hand-off floor that several presets share goes last, after every backend's rows.
      List<String> names = targets == null ? Targets.defaults()
          : targets.stream().flatMap(t -> Targets.expand(t).stream()).distinct()
              .sorted(Comparator.comparing(Targets::isHandoffFloor)).toList();
      String base = baseline == null ? names.get(0) : baseline;
      if (!names.contains(base)) {
        throw new IllegalArgumentException("--baseline " + base + " is not among the targets run: "
            + String.join(",", names));
      }
      List<Workload> ws = workloads == null ? List.of(Workload.values())
          : workloads.stream().sorted().distinct().toList();
      return new Settings(ws, names, base, f, wi, w, i, r, verbose, out == null ? defaultOut() : out, help);
    }

    private static int orElse(Integer value, String option, int otherwise) {
      if (value == null) {
        return otherwise;
      }
      if (value < 0) {
        throw new IllegalArgumentException(option + " takes a count of 0 or more, not '" + value + "'");
      }
      return value;
    }
  }

  /** A target name or preset, checked here and expanded to the targets it names in settings(). */
  static final class TargetNames implements ITypeConverter<String> {
    @Override
    public String convert(String name) {
      return checked(() -> {
        Targets.expand(name.trim());
        return name.trim();
      });
    }
  }

  /** One known target name. */
  static final class TargetName implements ITypeConverter<String> {
    @Override
    public String convert(String name) {
      return checked(() -> Targets.check(name));
    }
  }

  /** A workload's label (W1, W2-1c, ...), in either case. */
  static final class WorkloadName implements ITypeConverter<Workload> {
    @Override
    public Workload convert(String name) {
      return checked(() -> Workload.parse(name));
    }
  }

  /** A time as JMH takes it. */
  static final class Time implements ITypeConverter<TimeValue> {
    @Override
    public TimeValue convert(String value) {
      try {
        return TimeValue.fromString(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("takes a time such as 500ms or 2s, not '" + value + "'");
      }
    }
  }

  /** Our own checks' messages, as picocli shows a conversion's: "Invalid value for option …: msg". */
  private static <T> T checked(Supplier<T> parse) {
    try {
      return parse.get();
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage());
    }
  }

  /**
   * The build's target directory: the jar's folder when run from the shaded jar, the parent of the
   * classes folder when run from the build, so the file lands in the same place from any cwd.
   */
  static Path defaultOut() {
    try {
      Path code = Path.of(Settings.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return code.getParent().resolve("bench-results.md");
    } catch (Exception e) {
      return Path.of("dlock-bench", "target", "bench-results.md");
    }
  }
}
