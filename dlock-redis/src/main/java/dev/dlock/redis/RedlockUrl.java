package dev.dlock.redis;

import dev.dlock.internal.Urls;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A parsed {@code redlock://[user:password@]h1:p1,h2:p2,h3:p3[?params]} URL. Why a parser of its
 * own: Lettuce's {@link RedisURI} knows one host (or Sentinels), not N independent masters, and
 * the Redlock parameters are dlock's; each node gets a RedisURI built here with the shared
 * credentials and timeout. Every mistake is rejected at once, naming the value ({@link UrlParts}
 * cuts the URL and hides its password, the password-only form {@code redlock://secret@...} too).
 *
 * @param nodes        the masters, at least 3
 * @param prefix       the first part of every key, as for {@code redis://}
 * @param nodeTimeout  how long a round waits for a node's answer
 * @param driftFactor  the clock drift allowed per unit of lease time
 * @param restartDelay how long a (re)started node does not vote; zero for off
 * @param connectTimeout how long a TCP connect to a node (at open, and at every reconnect) may take
 * @param description  the URL without its password, for messages
 */
record RedlockUrl(List<RedisURI> nodes, String prefix, Duration nodeTimeout, double driftFactor,
    Duration restartDelay, Duration connectTimeout, String description) {
  static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(50);
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
  static final double DEFAULT_DRIFT = 0.01;
  static final Set<String> PARAMETERS =
      Set.of("prefix", "nodeTimeout", "timeout", "connectTimeout", "restartDelay", "drift");
  private static final String KIND = "redlock url";

  int majority() {
    return nodes.size() / 2 + 1;
  }

  static RedlockUrl parse(String url) {
    UrlParts parts = UrlParts.parse(url, KIND, PARAMETERS);
    if (!parts.scheme().equals("redlock")) {
      throw new IllegalArgumentException(String.format("redlock url must start with redlock://: %s",
          parts.description()));
    }
    if (!parts.path().isEmpty() && !parts.path().equals("/")) {
      throw new IllegalArgumentException(String.format("redlock url takes no path: %s", parts.description()));
    }
    String prefix = RedisUrl.DEFAULT_PREFIX;
    Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;
    Duration timeout = DEFAULT_TIMEOUT;
    Duration connectTimeout = RedisUrl.DEFAULT_CONNECT_TIMEOUT;
    Duration restartDelay = Duration.ZERO;
    double drift = DEFAULT_DRIFT;
    for (Urls.Parameter p : parts.parameters()) {
      switch (p.key()) {
        case "prefix" -> prefix = RedisUrl.checkPrefix(p.value());
        case "nodeTimeout" -> nodeTimeout = UrlParts.duration(p, false);
        case "timeout" -> timeout = UrlParts.duration(p, false);
        case "connectTimeout" -> connectTimeout = UrlParts.duration(p, false);
        case "restartDelay" -> restartDelay = UrlParts.duration(p, true);
        case "drift" -> drift = fraction(p.key(), p.value());
        default -> throw new IllegalStateException("parameter " + p.key() + " is known but not read");
      }
    }

    String user = parts.user();
    String password = parts.password();
    List<RedisURI> nodes = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String entry : parts.hosts()) {
      UrlParts.Node n = parts.node(entry, 0, KIND);
      if (!seen.add(n.host().toLowerCase(Locale.ROOT) + ":" + n.port())) {
        throw new IllegalArgumentException(String.format(
            "redlock url names node %s twice: %s", entry.trim(), parts.description()));
      }
      RedisURI.Builder b = RedisURI.Builder.redis(n.host(), n.port()).withTimeout(timeout);
      // An empty password sends no AUTH, as for redis://.
      if (password != null && !password.isEmpty()) {
        b = user == null ? b.withPassword(password.toCharArray())
            : b.withAuthentication(user, password.toCharArray());
      }
      nodes.add(b.build());
    }
    if (nodes.size() < 3) {
      throw new IllegalArgumentException(String.format("redlock url needs at least 3 nodes: %s",
          parts.description()));
    }
    return new RedlockUrl(List.copyOf(nodes), prefix, nodeTimeout, drift, restartDelay, connectTimeout,
        parts.description());
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
