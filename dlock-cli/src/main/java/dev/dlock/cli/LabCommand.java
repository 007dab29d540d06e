package dev.dlock.cli;

import dev.dlock.lab.Cell;
import dev.dlock.lab.CellResult;
import dev.dlock.lab.CellSpec;
import dev.dlock.lab.HtmlReport;
import dev.dlock.lab.Lab;
import dev.dlock.lab.LabRecord;
import dev.dlock.lab.LabSettings;
import dev.dlock.lab.Plan;
import dev.dlock.lab.TerminalReport;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dlock lab}: runs the articles' schemes in worker processes under real faults, checks their
 * histories, prints the scheme x fault matrix and writes a self-contained HTML report.
 */
@Command(name = "lab", mixinStandardHelpOptions = true,
    description = {"Runs each lock scheme under real faults (kill -9, pauses, server restarts), checks the "
        + "workers' histories, prints the matrix and writes an HTML report.",
        "Embedded H2, PostgreSQL, Redis and ZooKeeper are started unless --url names your own server."})
final class LabCommand implements Callable<Integer> {
  private static final String ZONKY_LOG = "org.slf4j.simpleLogger.log.io.zonky.test.db.postgres";

  @Spec CommandSpec spec;

  @Option(names = "--full", description = "Every scheme under every fault that can act on it: 137 cells, about 16 min.")
  boolean full;

  @Option(names = "--schemes", split = ",", paramLabel = "ID",
      description = "Only these schemes or backends, e.g. S4,S7,redis (default: all of the matrix).")
  List<String> schemes = List.of();

  @Option(names = "--faults", split = ",", paramLabel = "ID",
      description = {"Only these faults (default: all of the matrix): none, F1 (kill-holder), F1-gap (kill-in-gap),",
          "F2 (pause-holder), F3 (restart-server), F3-aof (restart-server-aof), F4 (failover), F6 (partition),",
          "F6-maj (partition-majority), F6-min (partition-minority), F8 (pause-server), skew (clock-skew),",
          "F7 (clock-jump; needs Debian's faketime package)."})
  List<String> faults = List.of();

  @Option(names = "--runs", defaultValue = "1", description = "Runs of each cell (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(names = "--url", paramLabel = "BACKEND=URL",
      description = "Run a backend (redis, redlock, sentinel, pg, zk, h2) on your own server; its server faults are skipped.")
  Map<String, String> urls = new LinkedHashMap<>();

  @Option(names = "--report", defaultValue = "lab-report.html", description = "The HTML report (default: ${DEFAULT-VALUE}).")
  Path report;

  @Option(names = "--record", paramLabel = "FILE",
      description = {"Also write the matrix as tab-separated text, one line per cell (verdict, counts, worst recovery,",
          "grants/s, wake-ups, whether grants were fenced), after a comment with the date, settings and command.",
          "The committed one: --full --record " + LabRecord.FILE + "."})
  Path record;

  @Option(names = "--merge", description = "With --record: keep the file's lines of cells this run did not run"
      + " (a partial run refreshes only its own cells).")
  boolean merge;

  @Option(names = "--dir", description = "Where the workers' histories go (default: a new temporary folder).")
  Path dir;

  @Override
  public Integer call() throws Exception {
    if (runs < 1) {
      throw new IllegalArgumentException("--runs must be at least 1, was " + runs);
    }
    if (merge && record == null) {
      throw new IllegalArgumentException("--merge needs --record FILE");
    }
    if (merge && Files.exists(record)) {
      LabRecord.read(record); // a file that cannot be merged into fails now, not after the runs
    }
    // zonky logs an error with a stack trace each time the lab restarts the PostgreSQL it killed
    // with kill -9; that kill is the fault, not an error. A user's own setting wins.
    System.setProperty(ZONKY_LOG, System.getProperty(ZONKY_LOG, "off"));
    PrintWriter out = spec.commandLine().getOut();
    List<CellSpec> cells = Plan.select(full ? Plan.full() : Plan.quick(), new LinkedHashSet<>(schemes),
        new LinkedHashSet<>(faults));
    LabSettings settings = LabSettings.QUICK;
    Lab.checkUrls(urls);
    Path histories = dir != null ? dir : Files.createTempDirectory("dlock-lab");
    out.printf("dlock lab: %d cells x %d runs, %d workers each, lease %d ms; histories in %s%n%n", cells.size(), runs,
        settings.workers(), settings.lease().toMillis(), histories);
    long t0 = System.nanoTime();
    List<CellResult> results;
    List<String> failures;
    try (Lab lab = new Lab(settings, urls, histories, out)) {
      results = lab.run(cells, runs);
      failures = lab.failures();
    }
    List<Cell> grouped = Cell.group(results);
    out.println();
    out.print(TerminalReport.render(grouped));
    String took = Duration.ofNanos(System.nanoTime() - t0).toSeconds() + " s";
    HtmlReport.write(report, grouped, "dlock lab", "Ran " + cells.size() + " cells x " + runs + " runs in " + took + ".",
        guideFrom(report, Path.of("")));
    out.printf("%nReport: %s (%s)%n", report.toAbsolutePath(), took);
    if (record != null) {
      List<String> args = spec.commandLine().getParseResult().originalArgs();
      // picocli may give the whole command line, the subcommand's name included
      int from = args.indexOf(spec.name()) + 1;
      String command = "./dlock lab " + String.join(" ", args.subList(from, args.size()));
      LabRecord made = LabRecord.of(record.toString(), grouped, LabRecord.comment(Instant.now(), settings, command));
      (merge && Files.exists(record) ? LabRecord.read(record).merge(made) : made).write(record);
      out.printf("Record: %s%n", record.toAbsolutePath());
    }
    for (String f : failures) {
      spec.commandLine().getErr().println("dlock lab: could not run " + f);
    }
    return failures.isEmpty() ? 0 : 1;
  }

  /**
   * The guide as the report's links must name it: relative to the report's folder when
   * {@code workingDir} holds the guide (a checkout of dlock), so a report written anywhere still
   * links to it; otherwise the guide's place in the repository.
   */
  static String guideFrom(Path report, Path workingDir) {
    Path guide = workingDir.resolve(HtmlReport.GUIDE).toAbsolutePath().normalize();
    if (!Files.isRegularFile(guide)) {
      return HtmlReport.GUIDE;
    }
    Path folder = report.toAbsolutePath().normalize().getParent();
    return folder.relativize(guide).toString().replace('\\', '/');
  }
}
