package dev.dlock.cli;

import dev.dlock.lab.CellResult;
import dev.dlock.lab.CellSpec;
import dev.dlock.lab.Lab;
import dev.dlock.lab.LabSettings;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The demo's second table: the flash sale again, while one buyer that holds the lock is paused
 * (SIGSTOP) past its lease, as a long GC pause would. An S7 lock (SET NX PX, DEL) lets the next
 * buyer in and the paused one's late write goes through; dlock's lock lets the next buyer in too,
 * but the stock row takes only writes whose token is not older than the last it took.
 */
final class PausedSale {
  private static final LabSettings SALE = new LabSettings(3, Duration.ofSeconds(5), Duration.ofSeconds(1),
      Duration.ofMillis(40), Duration.ofSeconds(1), Duration.ofMillis(800), 50);

  private final Path dir;

  PausedSale(Path dir) {
    this.dir = dir;
  }

  void print(PrintWriter out) throws Exception {
    out.printf("A buyer holding the lock is paused for %d ms (SIGSTOP), past its %d ms lease; %d items:%n%n",
        SALE.pause().toMillis(), SALE.lease().toMillis(), SALE.stock());
    String format = "%-24s | %5s | %8s | %12s | %12s | %s%n";
    out.printf(format, "lock", "sold", "oversold", "lost updates", "stale writes", "verdict");
    out.println("-".repeat(24) + "-+-------+----------+--------------+--------------+--------");
    try (Lab lab = new Lab(SALE, Map.of(), dir, new PrintWriter(OutputStream.nullOutputStream()))) {
      for (String scheme : List.of("S7", "S8")) {
        List<CellResult> results = lab.run(List.of(new CellSpec(scheme, "F2", "flash")), 1);
        if (results.isEmpty()) {
          throw new IllegalStateException("the paused sale could not run: " + lab.failures());
        }
        CellResult r = results.get(0);
        out.printf(format, scheme.equals("S7") ? "S7 SET NX PX + DEL" : "S8 dlock Redis + token",
            sold(r), r.oversold(), r.lostUpdates(),
            r.staleAccepted() + " in, " + r.staleRejected() + " out", r.verdict().word());
        out.flush();
      }
    }
    out.printf("%nstale writes: writes by a buyer whose lock had passed to another; in = the stock row took it,"
        + " out = it refused the token.%n");
  }

  private static long sold(CellResult r) {
    return r.events().stream().filter(e -> e.op().equals("buy") && e.type().equals("ok")).count();
  }
}
