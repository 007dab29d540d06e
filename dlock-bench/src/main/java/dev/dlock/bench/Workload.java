package dev.dlock.bench;

import java.util.Locale;

/** The workloads of the side-by-side benchmark, in table order. */
public enum Workload {
  W1(1, "1 thread, 1 key, lock+unlock"),
  W2(16, "16 threads, 1 key, lock+unlock"),
  W3(16, "16 threads, 1024 random keys, lock+unlock"),
  W4(2, "handoff: holder's unlock to the waiting client's lock() returning");

  /** Threads taking part, for the table. */
  public final int threads;
  /** One line for the legend. */
  public final String description;

  Workload(int threads, String description) {
    this.threads = threads;
    this.description = description;
  }

  /** The {@link LockBench} method that runs it; W4 has none, it runs in {@link Handoff}. */
  String benchmarkMethod() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code W1} or {@code w1}. */
  public static Workload parse(String s) {
    try {
      return valueOf(s.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("unknown workload '" + s + "'; known: W1, W2, W3, W4");
    }
  }
}
