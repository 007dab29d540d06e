package dev.dlock.jdbc;

import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockBackendProvider;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens {@code jdbc:} URLs for {@code LockClient.connect}, such as
 * {@code jdbc:postgresql://host:5432/db?user=u&password=p}, {@code jdbc:mariadb://host:3306/db?user=u},
 * {@code jdbc:mysql://...} or {@code jdbc:h2:mem:locks;DB_CLOSE_DELAY=-1}: a lease-lock backend
 * ({@link JdbcLockBackend}) with a small HikariCP pool and default settings. Two extra parameters are
 * understood and removed before the URL reaches the driver (each after {@code ?}, {@code &} or
 * {@code ;}): {@code dlockTable=NAME} names the lock table, and {@code dlockMode=session} selects
 * session locks ({@link JdbcLockBackend.Builder#session()}) instead of the default
 * {@code dlockMode=lease}.
 */
public final class JdbcBackendProvider implements LockBackendProvider {
  private static final Pattern TABLE_PARAM = Pattern.compile("([?&;])dlockTable=([^&;]*)");
  private static final Pattern MODE_PARAM = Pattern.compile("([?&;])dlockMode=([^&;]*)");

  @Override
  public Set<String> schemes() {
    return Set.of("jdbc");
  }

  @Override
  public LockBackend open(String url) {
    JdbcLockBackend.Builder builder = JdbcLockBackend.builder();
    String[] table = take(url, TABLE_PARAM);
    if (table != null) {
      builder.table(table[1]);
      url = table[0];
    }
    String[] mode = take(url, MODE_PARAM);
    if (mode != null) {
      switch (mode[1]) {
        case "session" -> builder.session();
        case "lease" -> builder.lease();
        default -> throw new IllegalArgumentException("dlockMode must be 'lease' or 'session', was '"
            + mode[1] + "'");
      }
      url = mode[0];
    }
    return builder.url(url).build();
  }

  /** The URL without the parameter and the parameter's value, or null if the URL lacks it. */
  private static String[] take(String url, Pattern param) {
    Matcher m = param.matcher(url);
    if (!m.find()) {
      return null;
    }
    String before = url.substring(0, m.start());
    String after = url.substring(m.end());
    if (m.group(1).equals("?") && after.startsWith("&")) {
      after = "?" + after.substring(1);
    }
    return new String[] {before + after, m.group(2)};
  }
}
