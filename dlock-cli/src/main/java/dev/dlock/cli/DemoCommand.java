package dev.dlock.cli;

import dev.dlock.cli.DemoWorker.Strategy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dlock demo}: the flash sale (U2) with no server. This process opens an embedded H2 file
 * database first, so it serves it to the workers through H2's auto-server on loopback; then, per
 * strategy, M worker JVMs with K buyers each sell the same N items. Workers connect, report READY,
 * and start together on GO, so JVM start-up is not in the throughput. The Redis and ZooKeeper
 * strategies run on servers it starts on loopback; the paused sale runs the lab's flash workload.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Flash sale: worker processes sell one item's stock through each strategy; prints a table.")
final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--stock", defaultValue = "200", description = "Items in stock (default: ${DEFAULT-VALUE}).")
  int stock;

  @Option(names = "--workers", defaultValue = "3", description = "Worker processes (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(names = "--buyers", defaultValue = "4", description = "Buyer threads per worker (default: ${DEFAULT-VALUE}).")
  int buyers;

  @Option(names = "--strategies", split = ",", description = "Any of ${COMPLETION-CANDIDATES} (default: all).")
  List<Strategy> strategies;

  @Option(names = "--pause", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Also sell with a buyer paused past its lease: an S7 lock, then dlock's with its token (default: on).")
  boolean pause;

  @Override
  public Integer call() throws Exception {
    if (stock < 1 || workers < 1 || buyers < 1) {
      throw new IllegalArgumentException(String.format(
          "--stock, --workers and --buyers must be at least 1: %d, %d, %d", stock, workers, buyers));
    }
    PrintWriter out = spec.commandLine().getOut();
    Path dir = Files.createTempDirectory("dlock-demo");
    String url = "jdbc:h2:file:" + dir.resolve("shop").toAbsolutePath() + ";AUTO_SERVER=TRUE";
    System.setProperty("h2.bindAddress", "127.0.0.1");
    List<Strategy> chosen = strategies == null ? Arrays.asList(Strategy.values()) : strategies;
    try (Connection server = DriverManager.getConnection(url); DemoServers servers = new DemoServers(dir)) {
      out.printf("Flash sale: %d items, %d worker processes x %d buyers, embedded H2 at %s%n%n",
          stock, workers, buyers, dir);
      String format = "%-18s | %5s | %8s | %9s | %11s | %10s%n";
      out.printf(format, "strategy", "sold", "oversold", "conflicts", "buys/s", "p99");
      out.println("-".repeat(18) + "-+-------+----------+-----------+-------------+-----------");
      for (Strategy s : chosen) {
        Shop.reset(server, stock);
        Tally t = sell(url, s, servers.lockUrl(s, url));
        out.printf(format, s.label, t.sold, Math.max(0, t.sold - stock), t.waits,
            String.format(Locale.ROOT, "%,.0f", t.sold / (t.nanos / 1e9)), t.p99());
        out.flush();
      }
      out.printf("%nEach buy reads the stock, checks the payment (%d ms), then writes stock - 1."
          + " conflicts: buys that found the lock held (S1, S3, S8, S12) or retried a stale version (S2).%n",
          DemoWorker.CHECKOUT_NANOS / 1_000_000);
      if (pause) {
        out.println();
        new PausedSale(dir.resolve("paused")).print(out);
      }
    } finally {
      deleteTree(dir);
    }
    return 0;
  }

  private Tally sell(String url, Strategy strategy, String lockUrl) throws IOException, InterruptedException {
    List<Process> procs = new ArrayList<>();
    List<BufferedReader> outs = new ArrayList<>();
    try {
      for (int i = 0; i < workers; i++) {
        Process p = new ProcessBuilder(javaBin(), "-cp", System.getProperty("java.class.path"),
            "-Dh2.bindAddress=127.0.0.1", DemoWorker.class.getName(), url, strategy.name(),
            Integer.toString(buyers), lockUrl == null ? "-" : lockUrl).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        procs.add(p);
        outs.add(new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
      }
      for (BufferedReader r : outs) {
        expect(r, "READY");
      }
      long start = System.nanoTime();
      for (Process p : procs) {
        OutputStream in = p.getOutputStream();
        in.write("GO\n".getBytes(StandardCharsets.UTF_8));
        in.flush();
      }
      Tally t = new Tally();
      for (BufferedReader r : outs) {
        t.add(expect(r, "RESULT"));
      }
      t.nanos = System.nanoTime() - start;
      for (Process p : procs) {
        if (p.waitFor() != 0) {
          throw new IllegalStateException("a demo worker failed with exit " + p.exitValue());
        }
      }
      return t;
    } finally {
      procs.forEach(Process::destroy);
    }
  }

  private static String expect(BufferedReader r, String word) throws IOException {
    String line = r.readLine();
    if (line == null) {
      throw new IllegalStateException("a demo worker ended before " + word + "; its message is above");
    }
    if (!line.startsWith(word)) {
      throw new IllegalStateException("a demo worker said '" + line + "' instead of " + word);
    }
    return line;
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The workers' results added up. */
  private static final class Tally {
    int sold;
    int waits;
    long nanos;
    final List<Long> micros = new ArrayList<>();

    void add(String resultLine) {
      String[] parts = resultLine.split(" ", 4);
      sold += Integer.parseInt(parts[1]);
      waits += Integer.parseInt(parts[2]);
      if (parts.length > 3 && !parts[3].isEmpty()) {
        for (String m : parts[3].split(",")) {
          micros.add(Long.parseLong(m));
        }
      }
    }

    String p99() {
      if (micros.isEmpty()) {
        return "-";
      }
      List<Long> sorted = new ArrayList<>(micros);
      sorted.sort(null);
      long us = sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.99) - 1));
      return us < 10_000 ? String.format(Locale.ROOT, "%.2f ms", us / 1e3) : (us / 1000) + " ms";
    }
  }
}
