package dev.dlock.jdbc;

import dev.dlock.internal.Urls;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * The user and password written in a JDBC URL's authority ({@code jdbc:mariadb://user:pw@host/db}),
 * moved out of the URL. Why: PostgreSQL's and MariaDB's drivers do not read that form; they take
 * {@code user:pw@host} for a host name or a port and echo it, password and all, in their errors,
 * which end up in exceptions and in the pool's log. Handed to the driver as its {@code user} and
 * {@code password} properties instead, the form works with every driver and the password stays out
 * of every message. Both are percent-decoded, as in dlock's other URLs.
 *
 * @param url      the URL without the user info
 * @param user     the user, or null if the URL names none there
 * @param password the password, or null
 */
record Credentials(String url, @Nullable String user, @Nullable String password) {

  /** Splits {@code url}; {@code redacted} is the URL as messages may show it. */
  static Credentials of(String url, String redacted) {
    int slashes = url.indexOf("//");
    if (slashes < 0) {
      return new Credentials(url, null, null);
    }
    int start = slashes + 2;
    int end = start;
    while (end < url.length() && "/?;#".indexOf(url.charAt(end)) < 0) {
      end++;
    }
    String authority = url.substring(start, end);
    if (authority.indexOf('@') < 0) {
      return new Credentials(url, null, null);
    }
    Urls.Authority a = Urls.authority(authority, redacted);
    return new Credentials(url.substring(0, start) + a.hosts() + url.substring(end), a.user(), a.password());
  }

  /** Never the password. */
  @Override
  public String toString() {
    return "Credentials[" + Urls.redact(url) + ", user " + user + (password == null ? "" : ", password ***") + "]";
  }

  /** Sets the driver properties {@code user} and {@code password} to those found, if any. */
  void addTo(Properties p) {
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
  }
}
