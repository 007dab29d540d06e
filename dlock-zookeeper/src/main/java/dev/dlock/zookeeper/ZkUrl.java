package dev.dlock.zookeeper;

import dev.dlock.spi.Urls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed {@code zookeeper://[user:pass@]h1:2181,h2:2181[/chroot][?sessionTimeout=..]} URL. Why a
 * parser of its own rather than {@link java.net.URI}: a host list with commas is not a URI
 * authority, and every rejection must name the (redacted) URL and the bad part.
 */
record ZkUrl(String hosts, String user, String password, String chroot, Duration sessionTimeout,
    Duration connectionTimeout, String redacted) {

  static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);
  private static final Pattern HOST = Pattern.compile("([A-Za-z0-9.\\-]+|\\[[0-9A-Fa-f:.]+\\])(?::(\\d{1,5}))?");

  static ZkUrl parse(String url) {
    String redacted = Urls.redact(url);
    String prefix = "zookeeper://";
    if (url == null || !url.toLowerCase(Locale.ROOT).startsWith(prefix)) {
      throw bad(redacted, "it must start with '" + prefix + "'");
    }
    String rest = url.substring(prefix.length());
    String query = "";
    int q = rest.indexOf('?');
    if (q >= 0) {
      query = rest.substring(q + 1);
      rest = rest.substring(0, q);
    }
    String path = "";
    int slash = rest.indexOf('/');
    if (slash >= 0) {
      path = rest.substring(slash);
      rest = rest.substring(0, slash);
    }
    Urls.Authority parts = Urls.authority(rest, redacted);
    if (parts.user() != null
        && (parts.password() == null || parts.user().isEmpty() || parts.password().isEmpty())) {
      throw bad(redacted, "credentials must be 'user:password@'");
    }
    List<String> hosts = new ArrayList<>();
    for (String h : parts.hosts().split(",", -1)) {
      Matcher m = HOST.matcher(h);
      if (!m.matches()) {
        throw bad(redacted, "'" + h + "' is not a host or host:port");
      }
      int port = m.group(2) == null ? 2181 : Integer.parseInt(m.group(2));
      if (port < 1 || port > 65535) {
        throw bad(redacted, "port " + port + " of '" + h + "' is not in 1-65535");
      }
      hosts.add(m.group(1) + ":" + port);
    }
    Duration session = DEFAULT_SESSION_TIMEOUT;
    Duration connection = DEFAULT_CONNECTION_TIMEOUT;
    for (Urls.Parameter p : Urls.parameters(query, redacted)) {
      switch (p.key()) {
        case "sessionTimeout" -> session = duration(redacted, p.key(), p.value());
        case "connectionTimeout" -> connection = duration(redacted, p.key(), p.value());
        default -> throw bad(redacted, "unknown parameter '" + p.key()
            + "' (known: sessionTimeout, connectionTimeout)");
      }
    }
    return new ZkUrl(String.join(",", hosts), parts.user(), parts.password(), chroot(redacted, path),
        session, connection, redacted);
  }

  /** The chroot as a path prefix without trailing slash; "" for none. */
  private static String chroot(String redacted, String path) {
    if (path.isEmpty() || path.equals("/")) {
      return "";
    }
    if (path.endsWith("/")) {
      throw bad(redacted, "chroot '" + path + "' must not end with '/'");
    }
    for (String part : path.substring(1).split("/", -1)) {
      if (part.isEmpty() || part.equals(".") || part.equals("..")) {
        throw bad(redacted, "chroot '" + path + "' has an empty, '.' or '..' component");
      }
    }
    return Urls.decode(path, redacted);
  }

  private static Duration duration(String redacted, String key, String value) {
    Duration d;
    try {
      d = Urls.duration(key, value);
    } catch (IllegalArgumentException e) {
      throw bad(redacted, e.getMessage());
    }
    if (d.toMillis() < 100 || d.compareTo(Duration.ofHours(1)) > 0) {
      throw bad(redacted, key + " '" + value + "' must be between 100ms and 1 hour");
    }
    return d;
  }

  private static IllegalArgumentException bad(String redacted, String why) {
    return new IllegalArgumentException(String.format(
        "bad zookeeper url '%s': %s; expected zookeeper://[user:pass@]host:port[,host:port...][/chroot]"
            + "[?sessionTimeout=10s&connectionTimeout=5s]", redacted, why));
  }

  boolean hasCredentials() {
    return user != null;
  }

  @Override
  public String toString() {
    return redacted;
  }
}
