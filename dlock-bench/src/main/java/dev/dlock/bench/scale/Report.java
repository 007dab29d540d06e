package dev.dlock.bench.scale;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The results of one {@code ./bench scale} run, as tables: S1, S2, then what the columns mean. */
final class Report {
  private final List<S1.Result> s1 = new ArrayList<>();
  private final List<S2.Result> s2 = new ArrayList<>();
  private final Table s1Table = new Table("S1 backend", "leases", "round (max)", "renew call (max)",
      "requests/round", "per 1,000 leases", "server ops/round", "server time/round", "heap after GC",
      "heap/lease");
  private final Table s2Table = new Table("S2 backend", "threads", "names", "ops/s", "heap before",
      "heap after", "stored before", "stored after", "held after");
  private final Set<String> legend = new LinkedHashSet<>();
  private boolean failed;

  void legend(String line) {
    legend.add(line);
  }

  void s1(S1.Result r) {
    s1.add(r);
    s1Table.add(r.backend(), count(r.leases()), millis(r.maxRoundNanos()), millis(r.maxCallNanos()),
        perRound(r.requestsPerRound()), r.requestsPerRound() < 0 ? "-"
            : String.format(Locale.ROOT, "%.3f", r.requestsPerRound() * 1000 / r.leases()),
        perRound(r.serverOpsPerRound()), r.serverMicrosPerRound() < 0 ? "-"
            : String.format(Locale.ROOT, "%.1f ms", r.serverMicrosPerRound() / 1000), megabytes(r.heapHeld()),
        String.format(Locale.ROOT, "%,.0f B", r.heapPerLease()));
  }

  void s2(S2.Result r) {
    s2.add(r);
    s2Table.add(r.backend(), Integer.toString(r.threads()), count(r.names()),
        String.format(Locale.ROOT, "%,.0f", r.opsPerSec()), megabytes(r.heapBefore()), megabytes(r.heapAfter()),
        stored(r.storedBefore(), r.storedUnit()), stored(r.storedAfter(), r.storedUnit()),
        Integer.toString(r.heldAfter()));
  }

  void failedS1(String backend, int leases, Throwable e) {
    failed = true;
    s1Table.add(backend, count(leases), "failed: " + e, "-", "-", "-", "-", "-", "-", "-");
  }

  void failedS2(String backend, int names, Throwable e) {
    failed = true;
    s2Table.add(backend, "-", count(names), "failed: " + e, "-", "-", "-", "-", "-");
  }

  boolean failed() {
    return failed;
  }

  List<S1.Result> s1Results() {
    return s1;
  }

  List<S2.Result> s2Results() {
    return s2;
  }

  String text() {
    return s1Table.text() + "\n" + s2Table.text() + "\n" + notes("\n");
  }

  /** A Markdown section, headed, naming the run's arguments. */
  String markdown(String args) {
    return "\n## Scale (S1, S2)\n\n" + ScaleMain.stamp() + "; `./bench scale " + args + "`.\n\n"
        + s1Table.markdown() + "\n" + s2Table.markdown() + "\n" + notes("  \n");
  }

  private String notes(String newline) {
    StringBuilder sb = new StringBuilder();
    sb.append("S1: one client holds n leases (acquire(), distinct names); round = its batch renew call plus the"
        + " engine's extension of each hold, to the last renewed event (max of the rounds measured);"
        + " requests, server ops and server time per round from the server's counters across those rounds;"
        + " heap after GC with every lease held, heap/lease = its growth over the empty client, divided by n.")
        .append(newline);
    sb.append("S2: one client locks and unlocks each name once per rotation; heap after GC and what the server"
        + " stores, before and after each rotation; held after = the client's holds left.").append(newline);
    legend.forEach(l -> sb.append(l).append(newline));
    return sb.toString();
  }

  private static String count(int n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static String millis(long nanos) {
    return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
  }

  private static String perRound(double n) {
    return n < 0 ? "-" : String.format(Locale.ROOT, "%,.1f", n);
  }

  private static String megabytes(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
  }

  private static String stored(long n, String unit) {
    return n < 0 ? "-" : String.format(Locale.ROOT, "%,d %s", n, unit);
  }
}
