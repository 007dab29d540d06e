package dev.dlock.engine;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Argument checks, made before any backend call so bad input fails at once with a message that
 * names the argument and its value.
 */
public final class Args {
  static final Duration MIN_LEASE = Duration.ofMillis(100);
  static final Duration MAX_LEASE = Duration.ofDays(7);
  /** Waits longer than this have no deadline; see {@link #waitNanos(Duration)}. */
  static final Duration MAX_WAIT = Duration.ofDays(365);
  /** The wait of an acquire without a deadline. */
  static final long NO_DEADLINE = -1;
  static final int MAX_CLIENT_NAME = 64;

  private Args() {}

  static String name(String name, int maxLength) {
    if (name == null) {
      throw new NullPointerException("name must not be null");
    }
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    if (name.length() > maxLength) {
      throw new IllegalArgumentException(String.format(
          "name must be at most %d chars, was %d: '%s'", maxLength, name.length(), abbreviate(name)));
    }
    int lone = loneSurrogate(name);
    if (lone >= 0) {
      // Servers store names as UTF-8, where every lone surrogate becomes the same '?' or U+FFFD:
      // two such names would be one lock.
      throw new IllegalArgumentException(String.format("name must be valid Unicode: it has a lone"
          + " surrogate \\u%04X at index %d", (int) name.charAt(lone), lone));
    }
    return name;
  }

  /** The index of the first surrogate char that is not half of a pair, or -1. */
  private static int loneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  public static Duration leaseTime(Duration leaseTime) {
    Duration d = positive("leaseTime", leaseTime, MAX_LEASE);
    if (d.compareTo(MIN_LEASE) < 0) {
      throw new IllegalArgumentException(String.format(
          "leaseTime must be at least %s: %s", Durations.format(MIN_LEASE), leaseTime));
    }
    return d;
  }

  /**
   * The one rule for how long an acquire waits, the same for every form that takes a wait: a
   * {@code Duration} must not be null or negative; a {@code long} with a {@code TimeUnit} of zero
   * or less means do not wait, as {@code Lock.tryLock} says; and a wait longer than
   * {@link #MAX_WAIT} (a year) means no deadline at all, so a caller who passes a huge value to
   * say "forever", such as {@code Long.MAX_VALUE} nanos, gets that and no overflow.
   *
   * @return the wait in nanos, or {@link #NO_DEADLINE}
   */
  static long waitNanos(Duration maxWait) {
    if (maxWait == null) {
      throw new NullPointerException("maxWait must not be null");
    }
    if (maxWait.isNegative()) {
      throw new IllegalArgumentException("maxWait must not be negative: " + maxWait);
    }
    return maxWait.compareTo(MAX_WAIT) > 0 ? NO_DEADLINE : maxWait.toNanos();
  }

  /** {@link #waitNanos(Duration)} for the {@code Lock} form: zero or less does not wait. */
  static long waitNanos(long time, TimeUnit unit) {
    if (unit == null) {
      throw new NullPointerException("unit must not be null");
    }
    long nanos = Math.max(0, unit.toNanos(time));
    return nanos > MAX_WAIT.toNanos() ? NO_DEADLINE : nanos;
  }

  public static Duration positive(String what, Duration value, Duration max) {
    if (value == null) {
      throw new NullPointerException(what + " must not be null");
    }
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(what + " must be positive: " + value);
    }
    if (value.compareTo(max) > 0) {
      throw new IllegalArgumentException(String.format(
          "%s must be at most %s: %s", what, Durations.format(max), value));
    }
    return value;
  }

  public static String clientName(String clientName) {
    if (clientName == null) {
      throw new NullPointerException("clientName must not be null");
    }
    if (clientName.isEmpty() || clientName.length() > MAX_CLIENT_NAME || clientName.indexOf(':') >= 0) {
      throw new IllegalArgumentException(String.format(
          "clientName must be 1 to %d chars without ':': '%s'", MAX_CLIENT_NAME, abbreviate(clientName)));
    }
    return clientName;
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 37) + "...";
  }
}
