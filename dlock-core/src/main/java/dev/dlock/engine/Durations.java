package dev.dlock.engine;

import java.time.Duration;
import java.util.Locale;

/** Short human forms of durations for messages: 850ms, 1.25s, 3m05s. */
final class Durations {
  private Durations() {}

  static String format(Duration d) {
    return d.compareTo(Duration.ofDays(1)) >= 0 ? d.toString() : formatNanos(d.toNanos());
  }

  static String formatNanos(long nanos) {
    if (nanos < 0) {
      return "-" + formatNanos(-nanos);
    }
    if (nanos < 1_000_000) {
      return String.format(Locale.ROOT, "%.3fms", nanos / 1e6);
    }
    if (nanos < 1_000_000_000) {
      return (nanos / 1_000_000) + "ms";
    }
    if (nanos < 60_000_000_000L) {
      return String.format(Locale.ROOT, "%.2fs", nanos / 1e9);
    }
    long s = nanos / 1_000_000_000L;
    return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
  }

  /** The nanos of {@code d}, or {@code Long.MAX_VALUE} for a duration too long to count in nanos. */
  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }
}
