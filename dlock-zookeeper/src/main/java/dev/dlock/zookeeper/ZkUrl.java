package dev.dlock.zookeeper;

import dev.dlock.internal.Urls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A parsed {@code zookeeper://[user:pass@]h1:2181,h2:2181[/chroot][?sessionTimeout=..&connectTimeout=..]}
 * URL. Why a parser of its own rather than {@link java.net.URI}: a host list with commas is not a
 * URI authority, and every rejection must name the redacted URL and the bad part. The user info
 * runs up to the last {@code @}, so a password with an unescaped {@code @}, {@code /} or
 * {@code ?} is still taken whole, and still hidden, rather than split into host or path.
 */
record ZkUrl(String hosts, @Nullable String user, @Nullable String password, String chroot,
    Duration sessionTimeout, Duration connectTimeout, String redacted) {

  static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);
  /**
   * Long enough for a TCP connect and a session handshake on any sane network, and for the client
   * to move to another member after a server of an ensemble dies (under a second here); short
   * enough that an unreachable ensemble is reported well before a user gives up. A caller's
   * shorter deadline shortens it further.
   */
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
  private static final String PREFIX = "zookeeper://";
  private static final String EXPECTED = "expected zookeeper://[user:pass@]host:port[,host:port...][/chroot]"
      + "[?sessionTimeout=10s&connectTimeout=2s]";
  private static final Pattern HOST = Pattern.compile("([A-Za-z0-9.\\-]+|\\[[0-9A-Fa-f:.]+\\])(?::(\\d{1,5}))?");

  static ZkUrl parse(String url) {
    String redacted = redact(url);
    if (url == null || !url.toLowerCase(Locale.ROOT).startsWith(PREFIX)) {
      throw bad(redacted, "it must start with '" + PREFIX + "'");
    }
    String rest = url.substring(PREFIX.length());
    int at = rest.lastIndexOf('@');
    String userInfo = at < 0 ? null : rest.substring(0, at);
    rest = rest.substring(at + 1);
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
    String user = null;
    String password = null;
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      if (colon <= 0 || colon == userInfo.length() - 1) {
        throw bad(redacted, "credentials must be 'user:password@'");
      }
      user = credential(userInfo.substring(0, colon), redacted);
      password = credential(userInfo.substring(colon + 1), redacted);
    }
    Map<String, Duration> durations = durations(query, redacted);
    return new ZkUrl(hosts(rest, redacted), user, password, chroot(redacted, path),
        durations.getOrDefault("sessionTimeout", DEFAULT_SESSION_TIMEOUT),
        durations.getOrDefault("connectTimeout", DEFAULT_CONNECT_TIMEOUT), redacted);
  }

  /**
   * The URL as messages show it: the password, or the whole user info when it has no {@code :} (a
   * bare secret), replaced by {@code ***}, up to the last {@code @}, as {@link #parse} splits it.
   */
  static String redact(String url) {
    if (url == null) {
      return "null";
    }
    int scheme = url.indexOf("://");
    int start = scheme < 0 ? url.indexOf(':') + 1 : scheme + 3;
    int at = url.lastIndexOf('@');
    if (at < start) {
      return Urls.redact(url);
    }
    String info = url.substring(start, at);
    int colon = info.indexOf(':');
    String shown = colon < 0 ? "***" : info.substring(0, colon) + ":***";
    return Urls.redact(url.substring(0, start) + shown + url.substring(at));
  }

  /**
   * A percent-decoded user or password. Why not {@link Urls#decode}: the decoder's message quotes
   * the text around a bad escape, which here is part of the secret.
   */
  private static String credential(String encoded, String redacted) {
    try {
      return Urls.decode(encoded, redacted);
    } catch (IllegalArgumentException e) {
      throw bad(redacted, "the user info has a malformed percent-escape (write '%' as %25)");
    }
  }

  private static String hosts(String list, String redacted) {
    List<String> hosts = new ArrayList<>();
    for (String h : list.split(",", -1)) {
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
    return String.join(",", hosts);
  }

  /**
   * The duration parameters by their canonical names; {@code connectionTimeout}, the name before
   * {@code connectTimeout}, is kept as its alias. A parameter given twice is refused rather than
   * one of the two silently ignored.
   */
  private static Map<String, Duration> durations(String query, String redacted) {
    Map<String, Duration> out = new HashMap<>();
    for (Urls.Parameter p : Urls.parameters(query, redacted)) {
      String key = switch (p.key()) {
        case "sessionTimeout" -> "sessionTimeout";
        case "connectTimeout", "connectionTimeout" -> "connectTimeout";
        default -> throw bad(redacted, "unknown parameter '" + p.key()
            + "' (known: sessionTimeout, connectTimeout, and connectionTimeout as its alias)");
      };
      if (out.put(key, duration(redacted, p.key(), p.value())) != null) {
        throw bad(redacted, "parameter '" + p.key() + "' is given twice"
            + (key.equals("connectTimeout") ? " (connectionTimeout is an alias of connectTimeout)" : ""));
      }
    }
    return out;
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
      throw bad(redacted, String.valueOf(e.getMessage()), e);
    }
    if (d.toMillis() < 100 || d.compareTo(Duration.ofHours(1)) > 0) {
      throw bad(redacted, key + " '" + value + "' must be between 100ms and 1 hour");
    }
    return d;
  }

  private static IllegalArgumentException bad(String redacted, String why) {
    return bad(redacted, why, null);
  }

  private static IllegalArgumentException bad(String redacted, String why, @Nullable Throwable cause) {
    return new IllegalArgumentException(String.format("bad zookeeper url '%s': %s; %s", redacted, why, EXPECTED),
        cause);
  }

  boolean hasCredentials() {
    return user != null;
  }

  @Override
  public String toString() {
    return redacted;
  }
}
