package dev.dlock.bench.scale;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code ./bench scale}: the scale rows S1 (renewal of 1, 1,000 and 100,000 leases held by one
 * client) and S2 (lock+unlock of 100,000 names in rotation, and whether memory is returned), on
 * the bench's servers. Prints both tables to stdout (progress to stderr) and appends them, as a
 * section of their own, to the bench's Markdown results.
 */
public final class ScaleMain {
  private ScaleMain() {}

  /** The options, as picocli reads them. */
  @Command(name = "./bench scale", sortOptions = false, usageHelpWidth = 100,
      description = "Runs the scale rows S1 and S2 and prints their tables (progress on stderr).")
  static final class Options {
    @Option(names = "--backends", split = ",", paramLabel = "B", converter = BackendName.class,
        description = "backends, in table order: redis, zookeeper, pg, mem (default redis,zookeeper,pg)")
    List<String> backends = List.of("redis", "zookeeper", "pg");

    @Option(names = "--rows", split = ",", paramLabel = "S", description = "S1, S2 or both (default both)")
    List<String> rows = List.of("S1", "S2");

    @Option(names = "--leases", split = ",", paramLabel = "N", description = "S1: leases held (default 1,1000,100000)")
    List<Integer> leases = List.of(1, 1_000, 100_000);

    @Option(names = "--lease", paramLabel = "TIME", converter = Time.class,
        description = "S1: the lease; a round runs every third of it (default 15s)")
    Duration lease = Duration.ofSeconds(15);

    @Option(names = "--rounds", paramLabel = "N", description = "S1: rounds measured per row (default 3)")
    int rounds = 3;

    @Option(names = "--names", paramLabel = "N", description = "S2: distinct names in rotation (default 100000)")
    int names = 100_000;

    @Option(names = "--threads", split = ",", paramLabel = "N", description = "S2: threads, one rotation each (default 1,4)")
    List<Integer> threads = List.of(1, 4);

    @Mixin
    ResultsFile results = new ResultsFile();

    void check() {
      for (String r : rows) {
        if (!r.equals("S1") && !r.equals("S2")) {
          throw new IllegalArgumentException("--rows takes S1 and S2, not '" + r + "'");
        }
      }
      if (rounds < 1 || names < 1 || leases.stream().anyMatch(n -> n < 1) || threads.stream().anyMatch(n -> n < 1)) {
        throw new IllegalArgumentException("--rounds, --names, --leases and --threads take counts of 1 or more,"
            + " not " + rounds + ", " + names + ", " + leases + ", " + threads);
      }
    }
  }

  /**
   * Runs {@code ./bench scale ARGS}.
   *
   * @param defaultOut the bench's Markdown results, appended to unless {@code --out} names another
   * @return the exit status: 0, 64 for a bad command line, 1 if a row failed
   */
  public static int run(String[] args, Path defaultOut, PrintStream out, PrintStream progress) {
    Options o = new Options();
    CommandLine cl = new CommandLine(o);
    try {
      cl.parseArgs(args);
      o.check();
    } catch (CommandLine.ParameterException | IllegalArgumentException e) {
      progress.println("bench scale: " + e.getMessage());
      progress.println(cl.getUsageMessage());
      return 64;
    }
    if (o.results.help()) {
      out.println(cl.getUsageMessage());
      return 0;
    }
    long start = System.nanoTime();
    Report report = run(o, progress);
    String section = report.markdown(String.join(" ", args));
    out.print(report.text());
    if (!o.results.append(defaultOut, section, "bench scale", progress)) {
      return 1;
    }
    progress.printf(Locale.ROOT, "bench scale: done in %.0f s; Markdown appended to %s%n",
        (System.nanoTime() - start) / 1e9, o.results.file(defaultOut));
    return report.failed() ? 1 : 0;
  }

  /** Runs the chosen rows on the chosen backends, one backend at a time. */
  static Report run(Options o, PrintStream progress) {
    Report report = new Report();
    for (String name : o.backends) {
      try (ScaleBackend b = ScaleBackend.create(name)) {
        report.legend(b.legend());
        if (o.rows.contains("S1")) {
          for (int n : o.leases) {
            progress.printf("bench: scale S1 on %s, %,d lease(s) ...%n", name, n);
            try {
              report.s1(S1.run(b, n, o.lease, o.rounds, progress));
            } catch (Exception | AssertionError e) {
              progress.println("bench:   failed: " + e);
              report.failedS1(name, n, e);
            }
          }
        }
        if (o.rows.contains("S2")) {
          try {
            S2.run(b, o.names, o.threads, progress).forEach(report::s2);
          } catch (Exception | AssertionError e) {
            progress.println("bench:   failed: " + e);
            report.failedS2(name, o.names, e);
          }
        }
      } catch (RuntimeException e) {
        progress.println("bench: scale on " + name + " failed: " + e);
        report.failedS1(name, 0, e);
      }
    }
    return report;
  }

  /** A backend name, checked. */
  static final class BackendName implements ITypeConverter<String> {
    @Override
    public String convert(String name) {
      if (!ScaleBackend.NAMES.contains(name)) {
        throw new TypeConversionException("unknown backend '" + name + "'; known: " + ScaleBackend.NAMES);
      }
      return name;
    }
  }

  /** A time as JMH takes it (500ms, 15s). */
  static final class Time implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return Duration.ofNanos(TimeValue.fromString(value).convertTo(TimeUnit.NANOSECONDS));
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("takes a time such as 500ms or 15s, not '" + value + "'");
      }
    }
  }

  /** When and where, for the Markdown section. */
  public static String stamp() {
    return String.format(Locale.ROOT, "%s, Java %s (%s), %d cores",
        LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")),
        System.getProperty("java.version"), System.getProperty("java.vm.name"),
        Runtime.getRuntime().availableProcessors());
  }

}
