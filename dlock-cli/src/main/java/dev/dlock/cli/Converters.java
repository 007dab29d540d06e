package dev.dlock.cli;

import dev.dlock.LockClient;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Option values checked while picocli reads them, so that a bad one fails before anything connects,
 * with picocli naming the option and the message naming the value as written. Durations are written
 * the way people write them on a command line: 500ms, 10s, 2m, 1h.
 */
final class Converters {
  private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

  private Converters() {}

  /** Any duration, zero included. */
  static class Time implements ITypeConverter<java.time.Duration> {
    @Override
    public java.time.Duration convert(String value) {
      Matcher m = DURATION.matcher(value.trim());
      if (!m.matches()) {
        throw new TypeConversionException(
            "'" + value + "' is not a duration; write a whole number and a unit, such as 500ms, 10s, 2m or 1h");
      }
      long n = Long.parseLong(m.group(1));
      switch (m.group(2)) {
        case "ms":
          return java.time.Duration.ofMillis(n);
        case "s":
          return java.time.Duration.ofSeconds(n);
        case "m":
          return java.time.Duration.ofMinutes(n);
        default:
          return java.time.Duration.ofHours(n);
      }
    }
  }

  /** A lease the library accepts; its builder holds the bounds, so they are not repeated here. */
  static final class Lease extends Time {
    @Override
    public java.time.Duration convert(String value) {
      java.time.Duration lease = super.convert(value);
      try {
        LockClient.builder().leaseTime(lease);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("'" + value + "' is not a valid lease (" + e.getMessage() + ")");
      }
      return lease;
    }
  }

  /** A wait of at most a year, the library's limit; longer waits are written by leaving --wait out. */
  static final class Wait extends Time {
    private static final java.time.Duration MAX = java.time.Duration.ofDays(365);

    @Override
    public java.time.Duration convert(String value) {
      java.time.Duration wait = super.convert(value);
      if (wait.compareTo(MAX) > 0) {
        throw new TypeConversionException(
            "'" + value + "' is longer than a year; leave --wait out to wait as long as it takes");
      }
      return wait;
    }
  }

  /**
   * A lock name that is not empty. How long a name may be depends on the backend, which knows it
   * only once connected; the library checks that before it sends anything for the name.
   */
  static final class Name implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      if (value.isEmpty()) {
        throw new TypeConversionException("'' is not a lock name: a name must not be empty");
      }
      return value;
    }
  }
}
