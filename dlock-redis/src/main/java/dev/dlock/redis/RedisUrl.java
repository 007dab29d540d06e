package dev.dlock.redis;

import dev.dlock.spi.Urls;
import io.lettuce.core.RedisURI;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * A parsed {@code redis://}, {@code rediss://}, {@code redis-sentinel://} or {@code redis-cluster://}
 * URL. Why split the query: {@code prefix}, {@code waitReplicas} and {@code waitTimeout} are dlock's
 * own parameters, which Lettuce's {@link RedisURI} would not know; everything else (user, password,
 * database, {@code timeout}, {@code verifyPeer}) is Lettuce's to parse. A Sentinel URL names its
 * master as the path ({@code /mymaster}), which Lettuce wants as the fragment.
 *
 * @param mode        one server, a Sentinel-watched master, or a cluster
 * @param uris        what Lettuce connects to: one URI, or a cluster's seed nodes
 * @param prefix      the first part of every key and channel
 * @param replication the replicas to wait for after a write, if any
 * @param description the URL without its password, for messages
 */
record RedisUrl(Mode mode, List<RedisURI> uris, String prefix, Replication replication, String description) {
  static final String DEFAULT_PREFIX = "dlock:";
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofMillis(200);

  enum Mode { STANDALONE, SENTINEL, CLUSTER }

  /**
   * {@code WAIT replicas timeout} after each grant and renewal; {@code replicas} 0 means no WAIT.
   *
   * @param replicas how many replicas must acknowledge
   * @param timeout  how long WAIT may block
   */
  record Replication(int replicas, Duration timeout) {
    static final Replication OFF = new Replication(0, DEFAULT_WAIT_TIMEOUT);

    boolean on() {
      return replicas > 0;
    }
  }

  /** The URI of a single server or Sentinel master; a cluster's first seed. */
  RedisURI uri() {
    return uris.get(0);
  }

  static RedisUrl parse(String url) {
    String description = Urls.redact(url);
    int colon = url.indexOf(':');
    String scheme = colon < 0 ? "" : url.substring(0, colon).toLowerCase(Locale.ROOT);
    Mode mode = switch (scheme) {
      case "redis", "rediss" -> Mode.STANDALONE;
      case "redis-sentinel", "rediss-sentinel" -> Mode.SENTINEL;
      case "redis-cluster", "rediss-cluster" -> Mode.CLUSTER;
      default -> throw new IllegalArgumentException(String.format(
          "redis url must start with redis://, rediss://, redis-sentinel:// or redis-cluster://: %s",
          description));
    };
    String prefix = DEFAULT_PREFIX;
    int replicas = 0;
    Duration waitTimeout = DEFAULT_WAIT_TIMEOUT;
    boolean timeoutGiven = false;
    int q = url.indexOf('?');
    String base = q < 0 ? url : url.substring(0, q);
    StringJoiner rest = new StringJoiner("&");
    for (Urls.Parameter p : Urls.parameters(q < 0 ? "" : url.substring(q + 1), description)) {
      switch (p.key()) {
        case "prefix" -> prefix = p.value();
        case "waitReplicas" -> replicas = replicas(p.value());
        case "waitTimeout" -> waitTimeout = Urls.positiveDuration("waitTimeout", p.value());
        default -> {
          timeoutGiven |= p.key().equals("timeout");
          rest.add(p.raw());
        }
      }
    }
    checkPrefix(prefix);
    String query = rest.length() == 0 ? "" : "?" + rest;
    List<RedisURI> uris = switch (mode) {
      case STANDALONE -> List.of(lettuce(base + query, base, description));
      case SENTINEL -> List.of(sentinel(scheme, base, query, description));
      case CLUSTER -> cluster(scheme, base, query, description);
    };
    if (!timeoutGiven) {
      uris.forEach(u -> u.setTimeout(DEFAULT_TIMEOUT));
    }
    return new RedisUrl(mode, uris, prefix, new Replication(replicas, waitTimeout), description);
  }

  /** {@code redis-sentinel://[auth@]h:p,h:p/master?q} is Lettuce's {@code redis-sentinel://[auth@]h:p,h:p?q#master}. */
  private static RedisURI sentinel(String scheme, String base, String query, String description) {
    int hosts = scheme.length() + 3;
    int slash = base.indexOf('/', hosts);
    String master = slash < 0 ? "" : base.substring(slash + 1);
    if (master.isEmpty() || master.contains("/")) {
      throw new IllegalArgumentException(String.format(
          "redis sentinel url must name its master as the path, as in redis-sentinel://h1:26379,h2:26379/mymaster: %s",
          description));
    }
    String nodes = base.substring(0, slash);
    for (String node : nodeList(nodes, hosts)) {
      checkAuthority("redis://" + node, description);
    }
    return lettuce(nodes + query + "#" + master, base, description);
  }

  /** Each seed node of {@code redis-cluster://[auth@]h:p,h:p?q} as {@code redis://[auth@]h:p?q}. */
  private static List<RedisURI> cluster(String scheme, String base, String query, String description) {
    int hosts = scheme.length() + 3;
    if (base.indexOf('/', hosts) >= 0) {
      throw new IllegalArgumentException(String.format(
          "redis cluster url takes no path (a cluster has one database): %s", description));
    }
    int at = base.lastIndexOf('@');
    String auth = at < hosts ? "" : base.substring(hosts, at + 1);
    String single = scheme.startsWith("rediss") ? "rediss://" : "redis://";
    List<RedisURI> uris = new ArrayList<>();
    for (String node : nodeList(base, hosts)) {
      String one = single + auth + node;
      uris.add(lettuce(one + query, one, description));
    }
    return List.copyOf(uris);
  }

  private static List<String> nodeList(String base, int hosts) {
    int at = base.lastIndexOf('@');
    return List.of(base.substring(Math.max(hosts, at + 1)).split(",", -1));
  }

  private static RedisURI lettuce(String lettuceUrl, String checked, String description) {
    if (!checked.startsWith("redis-sentinel") && !checked.startsWith("rediss-sentinel")) {
      checkAuthority(checked, description);
    }
    RedisURI uri;
    try {
      uri = RedisURI.create(lettuceUrl);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(String.format("malformed redis url %s: %s", description,
          Urls.redact(String.valueOf(e.getMessage()))));
    }
    boolean hasHost = uri.getHost() != null && !uri.getHost().isEmpty() || !uri.getSentinels().isEmpty();
    if (!hasHost) {
      throw new IllegalArgumentException(String.format("redis url has no host: %s", description));
    }
    return uri;
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

  private static int replicas(String value) {
    try {
      int n = Integer.parseInt(value);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(String.format(
        "waitReplicas must be a whole number of replicas, 0 or more: '%s'", value));
  }

  static void checkPrefix(String prefix) {
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException(String.format("prefix must not contain braces: '%s'", prefix));
    }
  }
}
