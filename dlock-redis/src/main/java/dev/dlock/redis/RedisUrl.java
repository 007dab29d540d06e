package dev.dlock.redis;

import dev.dlock.spi.Urls;
import io.lettuce.core.RedisURI;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * A parsed {@code redis://} or {@code rediss://} URL. Why split the query: {@code prefix} is
 * dlock's own parameter and Lettuce's {@link RedisURI} would not know it; everything else
 * (user, password, database, {@code timeout}, {@code verifyPeer}) is Lettuce's to parse.
 *
 * @param uri         what Lettuce connects to
 * @param prefix      the first part of every key and channel
 * @param description the URL without its password, for messages
 */
record RedisUrl(RedisURI uri, String prefix, String description) {
  static final String DEFAULT_PREFIX = "dlock:";
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  static RedisUrl parse(String url) {
    String description = Urls.redact(url);
    int colon = url.indexOf(':');
    String scheme = colon < 0 ? "" : url.substring(0, colon).toLowerCase(Locale.ROOT);
    if (!scheme.equals("redis") && !scheme.equals("rediss")) {
      throw new IllegalArgumentException(String.format(
          "redis url must start with redis:// or rediss://: %s", description));
    }
    String prefix = DEFAULT_PREFIX;
    boolean timeoutGiven = false;
    int q = url.indexOf('?');
    String base = q < 0 ? url : url.substring(0, q);
    StringJoiner rest = new StringJoiner("&");
    if (q >= 0) {
      for (String param : url.substring(q + 1).split("&")) {
        if (param.isEmpty()) {
          continue;
        }
        int eq = param.indexOf('=');
        String key = eq < 0 ? param : param.substring(0, eq);
        if (key.equals("prefix")) {
          prefix = URLDecoder.decode(eq < 0 ? "" : param.substring(eq + 1), StandardCharsets.UTF_8);
        } else {
          timeoutGiven |= key.equals("timeout");
          rest.add(param);
        }
      }
    }
    checkPrefix(prefix);
    checkAuthority(base, description);
    RedisURI uri;
    try {
      uri = RedisURI.create(rest.length() == 0 ? base : base + "?" + rest);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(String.format("malformed redis url %s: %s", description,
          Urls.redact(String.valueOf(e.getMessage()))));
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new IllegalArgumentException(String.format("redis url has no host: %s", description));
    }
    if (!timeoutGiven) {
      uri.setTimeout(DEFAULT_TIMEOUT);
    }
    return new RedisUrl(uri, prefix, description);
  }

  /** Lettuce reads {@code host:notaport} as a host name; java.net.URI does not. */
  private static void checkAuthority(String base, String description) {
    URI parsed;
    try {
      parsed = new URI(base);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(String.format("malformed redis url %s: %s", description,
          Urls.redact(e.getMessage())));
    }
    if (parsed.getHost() == null) {
      throw new IllegalArgumentException(String.format(
          "redis url must name a host and an optional numeric port: %s", description));
    }
  }

  static void checkPrefix(String prefix) {
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException(String.format("prefix must not contain braces: '%s'", prefix));
    }
  }
}
