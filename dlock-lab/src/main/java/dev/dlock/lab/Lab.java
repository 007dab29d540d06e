package dev.dlock.lab;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * A lab session: starts the servers its cells need (once, on first need), runs every cell the
 * given number of times, and shows progress as it goes. A backend the user pointed at a server of
 * their own ({@code urls}) is used as it is; the server faults cannot act on it, so its F3 and F8
 * cells are left out, and said so.
 */
public final class Lab implements AutoCloseable {
  private final LabSettings settings;
  private final Map<String, String> urls;
  private final Path dir;
  private final PrintWriter progress;
  private final Map<String, LabServer> servers = new LinkedHashMap<>();
  private final List<String> failures = new ArrayList<>();
  private H2Resource resource;

  /**
   * @param settings the shape of every run, but F4's lease ({@link LabSettings#forCell}) and the
   *                 ZooKeeper session of F6-maj on the ensemble ({@link LabSettings#majoritySession})
   * @param urls     backend name ({@code redis}, {@code pg}, {@code zk}, {@code redlock}, {@code h2}) to a
   *                 lock URL of the user's own server
   * @param dir      where the runs' histories go
   * @param progress where progress lines go
   */
  public Lab(LabSettings settings, Map<String, String> urls, Path dir, PrintWriter progress) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.urls = Map.copyOf(urls);
    this.dir = Objects.requireNonNull(dir, "dir");
    this.progress = Objects.requireNonNull(progress, "progress");
    checkUrls(urls);
  }

  /** Refuses a backend name the lab does not know, naming it. */
  public static void checkUrls(Map<String, String> urls) {
    for (String backend : urls.keySet()) {
      if (!Plan.BACKEND.containsValue(backend)) {
        throw new IllegalArgumentException("--url: unknown backend '" + backend + "'; known: "
            + new TreeSet<>(Plan.BACKEND.values()));
      }
    }
  }

  /** Runs each cell {@code runs} times; returns every run's result, cell by cell. */
  public List<CellResult> run(List<CellSpec> cells, int runs) throws Exception {
    if (runs < 1) {
      throw new IllegalArgumentException("runs must be at least 1, was " + runs);
    }
    List<CellSpec> runnable = new ArrayList<>();
    for (CellSpec c : cells) {
      if (c.serverFault() && urls.containsKey(Plan.BACKEND.get(c.scheme()))) {
        progress.printf("skipped %s: the fault acts on a server the lab started, and %s is the user's%n",
            c, Plan.BACKEND.get(c.scheme()));
      } else {
        runnable.add(c);
      }
    }
    Files.createDirectories(dir);
    List<CellResult> results = new ArrayList<>();
    int total = runnable.size() * runs;
    long begun = System.nanoTime();
    int done = 0;
    for (CellSpec cell : runnable) {
      for (int run = 1; run <= runs; run++) {
        progress.printf("[%" + width(total) + "d/%d] %-26s run %d/%d ", done + 1, total, cell, run, runs);
        progress.flush();
        long t0 = System.nanoTime();
        Path runDir = dir.resolve(String.format(Locale.ROOT, "%03d-%s-%s-%d", done + 1, cell.scheme(), cell.fault(), run));
        String said;
        try {
          LabServer server = server(Plan.server(cell));
          LabSettings own = settings.forCell(cell);
          CellResult r = new CellRun(cell, run, own, schemeUrl(cell, own, server), server, h2().url(),
              h2().connection(), runDir).run();
          results.add(r);
          said = r.verdict().word();
        } catch (IOException | SQLException | RuntimeException e) {
          // One cell that cannot run does not cost the others: it is reported and left out.
          failures.add(cell + " run " + run + ": " + e.getMessage());
          said = "FAILED";
        }
        done++;
        double perRun = (System.nanoTime() - begun) / 1e9 / done;
        progress.printf("%-6s %4.1f s, about %s left%n", said, (System.nanoTime() - t0) / 1e9,
            minutes(perRun * (total - done)));
        progress.flush();
      }
    }
    return results;
  }

  /** The runs that could not be run, each with why; their cells are missing from the results. */
  public List<String> failures() {
    return List.copyOf(failures);
  }

  /** The lock URL the workers of {@code cell}, run with {@code own} settings, use. */
  private String schemeUrl(CellSpec cell, LabSettings own, LabServer server) {
    String backend = Plan.BACKEND.get(cell.scheme());
    String url = urls.containsKey(backend) ? urls.get(backend) : backend.equals("h2") ? h2().lockUrl()
        : server instanceof ZooKeeperEnsemble zk && cell.fault().equals("F6-maj") ? zk.url(own.majoritySession())
        : server.url();
    if (cell.scheme().equals("S3-pg")) {
      url += (url.contains("?") ? "&" : "?") + "dlockMode=session";
    }
    if (cell.scheme().equals("S14-wait")) {
      url += (url.contains("?") ? "&" : "?") + "waitReplicas=1&waitTimeout="
          + Math.max(1, own.lease().toMillis() / 4) + "ms";
    }
    return url;
  }

  /** The lab's server for {@code key}, started on first use; {@code null} for H2 and user URLs. */
  private LabServer server(String key) {
    String backend = key.equals("redis-aof") ? "redis" : key.equals("redlock-clock") ? "redlock" : key;
    if (backend.equals("h2") || urls.containsKey(backend)) {
      return null;
    }
    LabServer s = servers.get(key);
    if (s == null) {
      progress.printf("(starting %s) ", key);
      progress.flush();
      s = Servers.start(key, dir.resolve("servers").resolve(key), settings.lease());
      servers.put(key, s);
    }
    return s;
  }

  private H2Resource h2() {
    if (resource == null) {
      resource = H2Resource.open(dir.resolve("resource"));
    }
    return resource;
  }

  private static int width(int total) {
    return Integer.toString(total).length();
  }

  private static String minutes(double seconds) {
    long s = Math.round(seconds);
    return s >= 60 ? (s / 60) + " min " + (s % 60) + " s" : s + " s";
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    for (LabServer s : servers.values()) {
      try {
        s.close();
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    if (resource != null) {
      resource.close();
    }
    if (failure != null) {
      throw failure;
    }
  }
}
