package dev.dlock.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Helpers for backend URLs. */
public final class Urls {
  // An '@' followed by a host list and then the path, query, parameters or the end.
  private static final Pattern HOSTS_AFTER_AT = Pattern.compile("@[\\w.\\-:,\\[\\]%]+(?=[/?#;]|$)");
  private static final Pattern PASSWORD_PARAM =
      Pattern.compile("((?i:password|pass|pwd)=)[^&;]*");
  private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h)?");

  private Urls() {}

  /**
   * The URL with any password replaced by {@code ***}, in user info ({@code //user:pass@} keeps the
   * user; a bare {@code //secret@}, Lettuce's password-only form, is hidden whole) or in a query
   * parameter ({@code password=}), so it can appear in messages and logs. The user info runs to
   * the last {@code @} that a host list follows, so a password holding an unescaped {@code @},
   * {@code /} or {@code ?} is hidden whole too.
   */
  public static String redact(String url) {
    if (url == null) {
      return "null";
    }
    String s = url;
    int slashes = s.indexOf("//");
    if (slashes >= 0) {
      int from = slashes + 2;
      Matcher hosts = HOSTS_AFTER_AT.matcher(s);
      int at = -1;
      while (hosts.find(at < 0 ? from : at + 1)) {
        at = hosts.start();
      }
      if (at >= 0) {
        String info = s.substring(from, at);
        int colon = info.indexOf(':');
        String kept = colon < 0 ? "***" : info.substring(0, colon) + ":***";
        s = s.substring(0, from) + kept + s.substring(at);
      }
    }
    return PASSWORD_PARAM.matcher(s).replaceAll("$1***");
  }

  /**
   * A duration URL parameter: a whole number of {@code ms}, {@code s}, {@code m} or {@code h}
   * ({@code 200ms}, {@code 2s}; a bare number is milliseconds), or an ISO-8601 duration
   * ({@code PT0.2S}); never negative.
   *
   * @param name  the parameter, for the message
   * @param value its text
   * @throws IllegalArgumentException naming the parameter and the value
   */
  public static Duration duration(String name, String value) {
    Matcher m = DURATION.matcher(value.trim().toLowerCase(Locale.ROOT));
    Duration d;
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      String unit = m.group(2) == null ? "ms" : m.group(2);
      d = switch (unit) {
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofMillis(n);
      };
    } else {
      try {
        d = Duration.parse(value.trim());
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(String.format(
            "%s must be a duration such as 50ms or 2s: %s", name, value), e);
      }
    }
    if (d.isNegative()) {
      throw new IllegalArgumentException(String.format("%s must not be negative: %s", name, value));
    }
    return d;
  }

  /**
   * Like {@link #duration}, and not zero either.
   *
   * @throws IllegalArgumentException naming the parameter and the value as written
   */
  public static Duration positiveDuration(String name, String value) {
    Duration d = duration(name, value);
    if (d.isZero()) {
      throw new IllegalArgumentException(String.format("%s must be positive: %s", name, value));
    }
    return d;
  }

  /**
   * A percent-decoded part of a URL (user info, path or parameter value). A {@code +} stays a
   * {@code +}, since only form data encodes spaces that way and passwords may hold one.
   *
   * @param part the encoded text
   * @param url  the URL, already {@linkplain #redact redacted}, for the message
   * @throws IllegalArgumentException on a malformed escape, naming the URL
   */
  public static String decode(String part, String url) {
    try {
      return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      // Neither the decoder's message nor the exception itself: both quote the part, which may be
      // a password.
      throw new IllegalArgumentException(String.format(
          "bad percent-encoding in %s: every '%%' must be followed by two hex digits", url));
    }
  }

  /**
   * Splits a URL's authority, {@code [user[:password]@]hosts}, at its last {@code @} and decodes
   * the credentials.
   *
   * @param authority the text between {@code scheme://} and the path or query
   * @param url       the URL, already {@linkplain #redact redacted}, for messages
   * @return the parts; user and password are null when absent
   */
  public static Authority authority(String authority, String url) {
    int at = authority.lastIndexOf('@');
    if (at < 0) {
      return new Authority(null, null, authority);
    }
    String info = authority.substring(0, at);
    int colon = info.indexOf(':');
    String user = decode(colon < 0 ? info : info.substring(0, colon), url);
    String password = colon < 0 ? null : decode(info.substring(colon + 1), url);
    return new Authority(user, password, authority.substring(at + 1));
  }

  /**
   * The parameters of a URL's query ({@code a=1&b=2}, without the {@code ?}), in order; empty
   * parts are skipped and a parameter without {@code =} has the value "".
   *
   * @param query the query, or "" for none
   * @param url   the URL, already {@linkplain #redact redacted}, for messages
   */
  public static List<Parameter> parameters(String query, String url) {
    List<Parameter> out = new ArrayList<>();
    for (String raw : query.split("&")) {
      if (raw.isEmpty()) {
        continue;
      }
      int eq = raw.indexOf('=');
      out.add(new Parameter(eq < 0 ? raw : raw.substring(0, eq),
          decode(eq < 0 ? "" : raw.substring(eq + 1), url), raw));
    }
    return out;
  }

  /**
   * One query parameter.
   *
   * @param key   its name
   * @param value its decoded value
   * @param raw   the parameter as written, {@code key=value}, for passing on
   */
  public record Parameter(String key, String value, String raw) {}

  /**
   * A URL's authority, split.
   *
   * @param user     the decoded user name, or null if the URL has no {@code @}
   * @param password the decoded password, or null if the user info has no {@code :}
   * @param hosts    what follows the {@code @}: the host list
   */
  public record Authority(@Nullable String user, @Nullable String password, String hosts) {}
}
