package dev.dlock.jdbc;

import dev.dlock.internal.Urls;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockBackendProvider;
import java.time.Duration;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Opens {@code jdbc:} URLs for {@code LockClient.connect}, such as
 * {@code jdbc:postgresql://host:5432/db?user=u&password=p}, {@code jdbc:mariadb://host:3306/db?user=u},
 * {@code jdbc:mysql://...} or {@code jdbc:h2:mem:locks;DB_CLOSE_DELAY=-1}: a lease-lock backend
 * ({@link JdbcLockBackend}) with a small HikariCP pool and default settings. Three extra parameters
 * are understood and removed before the URL reaches the driver (each after {@code ?}, {@code &} or
 * {@code ;}, at most once): {@code dlockTable=NAME} names the lock table, {@code dlockMode=session}
 * selects session locks ({@link JdbcLockBackend.Builder#session()}) instead of the default
 * {@code dlockMode=lease}, and {@code connectTimeout=2s} sets
 * {@link JdbcLockBackend.Builder#connectTimeout}. A value that does not parse is refused before
 * any connection is tried, naming the parameter and the value.
 */
public final class JdbcBackendProvider implements LockBackendProvider {
  /** Made by the {@code ServiceLoader}; applications open {@code jdbc:} URLs through the client. */
  public JdbcBackendProvider() {}

  @Override
  public Set<String> schemes() {
    return Set.of("jdbc");
  }

  @Override
  public LockBackend open(String url) {
    String redacted = Urls.redact(url);
    JdbcLockBackend.Builder builder = JdbcLockBackend.builder();
    Taken table = take(url, "dlockTable", redacted);
    if (table.value != null) {
      try {
        builder.table(table.value);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("dlockTable=" + table.value + " in " + redacted + ": "
            + e.getMessage(), e);
      }
    }
    Taken mode = take(table.rest, "dlockMode", redacted);
    if (mode.value != null) {
      switch (mode.value) {
        case "session" -> builder.session();
        case "lease" -> builder.lease();
        default -> throw new IllegalArgumentException("dlockMode must be 'lease' or 'session', was '"
            + mode.value + "' in " + redacted);
      }
    }
    Taken connect = take(mode.rest, "connectTimeout", redacted);
    if (connect.value != null) {
      builder.connectTimeout(connectTimeout(connect.value, redacted));
    }
    return builder.url(connect.rest).build();
  }

  /**
   * The connectTimeout parameter. A bare number is refused: PostgreSQL's driver reads its own
   * parameter of that name in seconds and MariaDB's in milliseconds, so the unit must be written.
   */
  private static Duration connectTimeout(String value, String redacted) {
    if (value.matches("\\d+")) {
      throw badConnectTimeout("needs a unit, such as 2s or 500ms", value, redacted, null);
    }
    Duration d;
    try {
      d = Urls.positiveDuration("connectTimeout", value);
    } catch (IllegalArgumentException e) {
      throw badConnectTimeout("must be a duration such as 2s or 500ms", value, redacted, e);
    }
    if (d.compareTo(Duration.ofMillis(250)) < 0 || d.compareTo(Duration.ofMinutes(10)) > 0) {
      throw badConnectTimeout("must be 250ms to 10m", value, redacted, null);
    }
    return d;
  }

  private static IllegalArgumentException badConnectTimeout(String problem, String value, String redacted,
      @Nullable Throwable cause) {
    return new IllegalArgumentException(String.format("connectTimeout %s, was '%s' in %s", problem,
        value, redacted), cause);
  }

  /** A URL with one dlock parameter taken out, and that parameter's value (null if absent). */
  private record Taken(String rest, @Nullable String value) {}

  private static Taken take(String url, String param, String redacted) {
    Matcher m = Pattern.compile("([?&;])" + param + "=([^&;]*)").matcher(url);
    if (!m.find()) {
      return new Taken(url, null);
    }
    String value = m.group(2);
    String before = url.substring(0, m.start());
    String after = url.substring(m.end());
    if (m.group(1).equals("?") && after.startsWith("&")) {
      after = "?" + after.substring(1);
    }
    String rest = before + after;
    if (Pattern.compile("[?&;]" + param + "=").matcher(rest).find()) {
      throw new IllegalArgumentException(param + " is given twice in " + redacted);
    }
    return new Taken(rest, value);
  }
}
