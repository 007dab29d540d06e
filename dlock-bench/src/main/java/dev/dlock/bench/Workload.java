package dev.dlock.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The workloads of the side-by-side benchmark, in table order. */
public enum Workload {
  W1("W1", 1, "1 thread, 1 key, lock+unlock"),
  W2("W2", 16, "16 threads, 1 key, lock+unlock, threads spread over 4 clients"),
  W2_1C("W2-1c", 16, "16 threads, 1 key, lock+unlock, all on one client"),
  W3("W3", 16, "16 threads, 1024 random keys, lock+unlock, threads spread over 4 clients"),
  W4("W4", 2, "handoff: holder's unlock to the waiting client's lock() returning");

  /** The name in tables and on the command line. */
  public final String label;
  /** Threads taking part, for the table. */
  public final int threads;
  /** One line for the legend. */
  public final String description;

  Workload(String label, int threads, String description) {
    this.label = label;
    this.threads = threads;
    this.description = description;
  }

  /** The {@link LockBench} method that runs it; W4 has none, it runs in {@link Handoff}. */
  String benchmarkMethod() {
    return name().toLowerCase(Locale.ROOT);
  }

  @Override
  public String toString() {
    return label;
  }

  /** The labels, comma-separated, for usage and error messages. */
  static String labels() {
    return Arrays.stream(values()).map(w -> w.label).collect(Collectors.joining(","));
  }

  /** Parses a label ({@code W1}, {@code W2-1c}) in either case. */
  public static Workload parse(String s) {
    for (Workload w : values()) {
      if (w.label.equalsIgnoreCase(s.trim())) {
        return w;
      }
    }
    throw new IllegalArgumentException("unknown workload '" + s + "'; known: " + labels());
  }
}
