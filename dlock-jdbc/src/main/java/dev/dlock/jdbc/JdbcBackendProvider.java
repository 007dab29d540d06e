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
 * ({@link JdbcLockBackend}) with a small HikariCP pool and default settings. One extra parameter is
 * understood and removed before the URL reaches the driver: {@code dlockTable=NAME} (after
 * {@code ?}, {@code &} or {@code ;}) names the lock table.
 */
public final class JdbcBackendProvider implements LockBackendProvider {
  private static final Pattern TABLE_PARAM = Pattern.compile("([?&;])dlockTable=([^&;]*)");

  @Override
  public Set<String> schemes() {
    return Set.of("jdbc");
  }

  @Override
  public LockBackend open(String url) {
    JdbcLockBackend.Builder builder = JdbcLockBackend.builder();
    Matcher m = TABLE_PARAM.matcher(url);
    if (m.find()) {
      builder.table(m.group(2));
      String before = url.substring(0, m.start());
      String after = url.substring(m.end());
      if (m.group(1).equals("?") && after.startsWith("&")) {
        after = "?" + after.substring(1);
      }
      url = before + after;
    }
    return builder.url(url).build();
  }
}
