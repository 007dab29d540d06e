package dev.dlock.redis;

import dev.dlock.internal.Urls;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A {@code redis://}-family or {@code redlock://} URL cut into its parts, and the description of it
 * that messages show. Why dlock cuts it and not Lettuce: Lettuce's parser lets a malformed value
 * pass ({@code timeout=abc} keeps the default, {@code db=x} is ignored, an unknown parameter is
 * dropped) and its errors quote the whole URL, password and all; here every part is checked, and
 * an error names the part and its value. Why two readings of the user info: the parts are read as
 * RFC 3986 has it (the authority ends at the first '/', '?' or '#', and the user info runs to its
 * last '@'), but the description hides everything from the user info's first ':' to the last '@'
 * of the whole URL, so a password holding a raw '/', '?' or '@' never reaches a message either. A
 * user info without ':' ({@code redis://secret@host}) is Lettuce's password-only form, and is
 * hidden whole. A URL whose last '@' lies past the host list is refused, quoting only the
 * description: the two readings would differ there, and any part an error quoted might be a
 * piece of the password.
 *
 * @param scheme      the scheme, in lower case
 * @param user        the decoded user name, or null
 * @param password    the decoded password, or null
 * @param hosts       the comma-separated entries of the host list, as written
 * @param path        the path, "" if none, starting with '/' otherwise
 * @param parameters  the query parameters, each known to the caller and given once
 * @param description the URL without its password, for messages
 */
record UrlParts(String scheme, @Nullable String user, @Nullable String password, List<String> hosts,
    String path, List<Urls.Parameter> parameters, String description) {
  /** The longest duration a parameter takes: a longer one is a mistake, and would overflow later. */
  static final Duration LONGEST = Duration.ofDays(1);
  private static final Pattern HOST_PORT =
      Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[^\\s:\\[\\]/?#@,]+)(?::(\\d{1,5}))?");

  /**
   * @param url   the URL as given
   * @param kind  what the URL is for messages, such as "redis url"
   * @param known the parameters the caller takes; any other is refused, naming the known ones
   */
  static UrlParts parse(String url, String kind, Set<String> known) {
    if (url == null) {
      throw new IllegalArgumentException(kind + " must not be null");
    }
    String description = describe(url, known);
    int sep = url.indexOf("://");
    if (sep <= 0) {
      throw new IllegalArgumentException(String.format("%s must start with scheme://: %s", kind, description));
    }
    String scheme = url.substring(0, sep).toLowerCase(Locale.ROOT);
    String rest = url.substring(sep + 3);
    int end = firstOf(rest, "/?#", 0);
    if (rest.lastIndexOf('@') > end) {
      throw new IllegalArgumentException(String.format("%s has an '@' after its host list: a password"
          + " holding a raw '/', '?' or '#', or an '@' in the path or a parameter; percent-encode it"
          + " (%%2F, %%3F, %%23, %%40): %s", kind, description));
    }
    String authority = rest.substring(0, end);
    int queryAt = firstOf(rest, "?#", end);
    String path = rest.substring(end, queryAt);
    int fragmentAt = firstOf(rest, "#", queryAt);
    if (fragmentAt < rest.length()) {
      throw new IllegalArgumentException(String.format("%s takes no fragment ('#'): %s", kind, description));
    }
    String query = queryAt < rest.length() ? rest.substring(queryAt + 1) : "";
    Urls.Authority auth = Urls.authority(authority, description);
    String user = auth.user();
    String password = auth.password();
    if (password == null && user != null) {
      password = user; // Lettuce's password-only form
      user = null;
    }
    if (user != null && user.isEmpty()) {
      user = null;
    }
    if (auth.hosts().isEmpty()) {
      throw new IllegalArgumentException(String.format("%s has no host: %s", kind, description));
    }
    List<Urls.Parameter> parameters = Urls.parameters(query, description);
    Set<String> seen = new HashSet<>();
    for (Urls.Parameter p : parameters) {
      if (!known.contains(p.key())) {
        throw new IllegalArgumentException(String.format("unknown %s parameter '%s' (known: %s): %s",
            kind, p.key(), String.join(", ", new TreeSet<>(known)), description));
      }
      if (!seen.add(p.key())) {
        throw new IllegalArgumentException(String.format("%s gives parameter '%s' twice: %s",
            kind, p.key(), description));
      }
    }
    return new UrlParts(scheme, user, password, List.of(auth.hosts().split(",", -1)), path,
        List.copyOf(parameters), description);
  }

  /** A host and port of the host list. */
  record Node(String host, int port) {}

  /**
   * One entry of the host list: {@code host}, {@code host:port} or {@code [v6]:port};
   * {@code defaultPort} 0 makes the port required.
   */
  Node node(String entry, int defaultPort, String kind) {
    Matcher m = HOST_PORT.matcher(entry.trim());
    int port = m.matches() && m.group(2) != null ? Integer.parseInt(m.group(2)) : defaultPort;
    if (!m.matches() || port < 1 || port > 65535) {
      throw new IllegalArgumentException(String.format("%s must name each node as %s, with a port"
          + " from 1 to 65535: '%s' in %s", kind, defaultPort == 0 ? "host:port" : "host[:port]",
          entry, description));
    }
    String host = m.group(1);
    return new Node(host.startsWith("[") ? host.substring(1, host.length() - 1) : host, port);
  }

  /** A duration parameter, positive unless {@code zeroAllowed}, and at most {@link #LONGEST}. */
  static Duration duration(Urls.Parameter p, boolean zeroAllowed) {
    Duration d = zeroAllowed ? Urls.duration(p.key(), p.value()) : Urls.positiveDuration(p.key(), p.value());
    if (d.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException(String.format("%s must be at most %s: %s", p.key(), LONGEST, p.value()));
    }
    return d;
  }

  /**
   * The URL with its password hidden: in the user info (the lone form whole) and in the value of
   * every query parameter that is not one of {@code known}, which may be a secret a user put there.
   */
  static String describe(String url, Set<String> known) {
    int sep = url.indexOf("://");
    int start = sep >= 0 ? sep + 3 : url.indexOf(':') + 1;
    int at = url.lastIndexOf('@');
    StringBuilder out = new StringBuilder(url.substring(0, start));
    int from = start;
    if (at >= start) {
      int colon = url.indexOf(':', start);
      out.append(colon >= 0 && colon < at ? url.substring(start, colon) + ":***@" : "***@");
      from = at + 1;
    }
    int q = url.indexOf('?', from);
    if (q < 0) {
      return out.append(url.substring(from)).toString();
    }
    out.append(url, from, q + 1);
    String[] params = url.substring(q + 1).split("&", -1);
    for (int i = 0; i < params.length; i++) {
      int eq = params[i].indexOf('=');
      String key = eq < 0 ? params[i] : params[i].substring(0, eq);
      out.append(i == 0 ? "" : "&").append(eq < 0 || known.contains(key) ? params[i] : key + "=***");
    }
    return out.toString();
  }

  private static int firstOf(String s, String chars, int from) {
    for (int i = from; i < s.length(); i++) {
      if (chars.indexOf(s.charAt(i)) >= 0) {
        return i;
      }
    }
    return s.length();
  }
}
