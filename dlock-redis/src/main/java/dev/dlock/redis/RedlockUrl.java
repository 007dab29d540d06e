package dev.dlock.redis;

import dev.dlock.spi.Urls;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed {@code redlock://[user:password@]h1:p1,h2:p2,h3:p3[?params]} URL. Why a parser of its
 * own: Lettuce's {@link RedisURI} knows one host (or Sentinels), not N independent masters, and
 * the Redlock parameters are dlock's; each node gets a RedisURI built here with the shared
 * credentials and timeout. Every mistake is rejected at once, naming the value.
 *
 * @param nodes        the masters, at least 3
 * @param prefix       the first part of every key, as for {@code redis://}
 * @param nodeTimeout  how long a round waits for a node's answer
 * @param driftFactor  the clock drift allowed per unit of lease time
 * @param restartDelay how long a (re)started node does not vote; zero for off
 * @param description  the URL without its password, for messages
 */
record RedlockUrl(List<RedisURI> nodes, String prefix, Duration nodeTimeout, double driftFactor,
    Duration restartDelay, String description) {
  static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(50);
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
  static final double DEFAULT_DRIFT = 0.01;
  private static final Pattern NODE = Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[^:\\[\\]]+):(\\d{1,5})");

  int majority() {
    return nodes.size() / 2 + 1;
  }

  static RedlockUrl parse(String url) {
    String description = Urls.redact(url);
    if (url == null || !url.toLowerCase(Locale.ROOT).startsWith("redlock://")) {
      throw new IllegalArgumentException(String.format("redlock url must start with redlock://: %s",
          description));
    }
    String rest = url.substring("redlock://".length());
    int q = rest.indexOf('?');
    String query = q < 0 ? "" : rest.substring(q + 1);
    String authority = q < 0 ? rest : rest.substring(0, q);
    if (authority.endsWith("/")) {
      authority = authority.substring(0, authority.length() - 1);
    }
    if (authority.indexOf('/') >= 0) {
      throw new IllegalArgumentException(String.format("redlock url takes no path: %s", description));
    }
    Urls.Authority parts = Urls.authority(authority, description);
    String user = parts.user();
    String password = parts.password();

    String prefix = RedisUrl.DEFAULT_PREFIX;
    Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;
    Duration timeout = DEFAULT_TIMEOUT;
    Duration restartDelay = Duration.ZERO;
    double drift = DEFAULT_DRIFT;
    for (Urls.Parameter p : Urls.parameters(query, description)) {
      String key = p.key();
      String value = p.value();
      switch (key) {
        case "prefix" -> prefix = value;
        case "nodeTimeout" -> nodeTimeout = Urls.positiveDuration(key, value);
        case "timeout" -> timeout = Urls.positiveDuration(key, value);
        case "restartDelay" -> restartDelay = Urls.duration(key, value);
        case "drift" -> drift = fraction(key, value);
        default -> throw new IllegalArgumentException(String.format(
            "unknown redlock url parameter '%s': %s", key, description));
      }
    }
    RedisUrl.checkPrefix(prefix);

    List<RedisURI> nodes = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String node : parts.hosts().split(",", -1)) {
      Matcher m = NODE.matcher(node.trim());
      if (!m.matches() || Integer.parseInt(m.group(2)) < 1 || Integer.parseInt(m.group(2)) > 65535) {
        throw new IllegalArgumentException(String.format(
            "redlock node must be host:port: '%s' in %s", node, description));
      }
      if (!seen.add(m.group(0).toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(String.format(
            "redlock url names node %s twice: %s", m.group(0), description));
      }
      String host = m.group(1).startsWith("[") ? m.group(1).substring(1, m.group(1).length() - 1)
          : m.group(1);
      RedisURI.Builder b = RedisURI.Builder.redis(host, Integer.parseInt(m.group(2))).withTimeout(timeout);
      if (password != null) {
        b = user == null || user.isEmpty() ? b.withPassword(password.toCharArray())
            : b.withAuthentication(user, password.toCharArray());
      }
      nodes.add(b.build());
    }
    if (nodes.size() < 3) {
      throw new IllegalArgumentException(String.format("redlock url needs at least 3 nodes: %s",
          description));
    }
    return new RedlockUrl(List.copyOf(nodes), prefix, nodeTimeout, drift, restartDelay, description);
  }

  private static double fraction(String name, String value) {
    double d;
    try {
      d = Double.parseDouble(value);
    } catch (NumberFormatException e) {
      d = Double.NaN;
    }
    if (!(d >= 0 && d < 1)) {
      throw new IllegalArgumentException(String.format(
          "%s must be a number from 0 (inclusive) to 1 (exclusive): %s", name, value));
    }
    return d;
  }
}
