package dev.dlock.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses durations the way people write them on a command line: 500ms, 10s, 2m, 1h. */
final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

  @Override
  public Duration convert(String value) {
    Matcher m = FORM.matcher(value.trim());
    if (!m.matches()) {
      throw new TypeConversionException(
          "'" + value + "' is not a duration; write a whole number and a unit, such as 500ms, 10s, 2m or 1h");
    }
    long n = Long.parseLong(m.group(1));
    switch (m.group(2)) {
      case "ms":
        return Duration.ofMillis(n);
      case "s":
        return Duration.ofSeconds(n);
      case "m":
        return Duration.ofMinutes(n);
      default:
        return Duration.ofHours(n);
    }
  }
}
