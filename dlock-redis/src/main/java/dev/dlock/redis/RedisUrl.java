package dev.dlock.redis;

import dev.dlock.internal.Urls;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A parsed {@code redis://}, {@code rediss://}, {@code redis-sentinel://} or {@code redis-cluster://}
 * URL. Why Lettuce's {@link RedisURI}s are built here from checked parts ({@link UrlParts}) rather
 * than by Lettuce's own parser: that parser lets malformed values through silently and quotes the
 * password in its errors. Lettuce's parameters ({@code timeout}, {@code database}, {@code clientName},
 * {@code verifyPeer} ...) keep their meaning; a Sentinel URL names its master as the path
 * ({@code /mymaster}), where Lettuce wants the fragment.
 *
 * @param mode           one server, a Sentinel-watched master, or a cluster
 * @param uris           what Lettuce connects to: one URI, or a cluster's seed nodes
 * @param prefix         the first part of every key and channel
 * @param replication    the replicas to wait for after a write, if any
 * @param connectTimeout how long a TCP connect (at open, and at every reconnect) may take
 * @param description    the URL without its password, for messages
 */
record RedisUrl(Mode mode, List<RedisURI> uris, String prefix, Replication replication,
    Duration connectTimeout, String description) {
  static final String DEFAULT_PREFIX = "dlock:";
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofMillis(200);
  /** One SYN retransmission (Linux waits 1 s for the first) and slack: a lost SYN alone fails no connect. */
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
  static final Set<String> PARAMETERS = Set.of("prefix", "waitReplicas", "waitTimeout", "connectTimeout",
      "timeout", "database", "db", "clientName", "libraryName", "libraryVersion", "verifyPeer");
  private static final String KIND = "redis url";

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
    UrlParts parts = UrlParts.parse(url, KIND, PARAMETERS);
    String scheme = parts.scheme();
    Mode mode = switch (scheme) {
      case "redis", "rediss" -> Mode.STANDALONE;
      case "redis-sentinel", "rediss-sentinel" -> Mode.SENTINEL;
      case "redis-cluster", "rediss-cluster" -> Mode.CLUSTER;
      default -> throw new IllegalArgumentException(String.format(
          "redis url must start with redis://, rediss://, redis-sentinel:// or redis-cluster://: %s",
          parts.description()));
    };
    Options o = new Options(parts, scheme.startsWith("rediss"));
    String prefix = DEFAULT_PREFIX;
    int replicas = 0;
    Duration waitTimeout = DEFAULT_WAIT_TIMEOUT;
    Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    for (Urls.Parameter p : parts.parameters()) {
      switch (p.key()) {
        case "prefix" -> prefix = checkPrefix(p.value());
        case "waitReplicas" -> replicas = whole(p);
        case "waitTimeout" -> waitTimeout = UrlParts.duration(p, false);
        case "connectTimeout" -> connectTimeout = UrlParts.duration(p, false);
        default -> o.set(p, mode);
      }
    }
    List<RedisURI> uris = switch (mode) {
      case STANDALONE -> List.of(standalone(parts, o));
      case SENTINEL -> List.of(sentinel(parts, o));
      case CLUSTER -> cluster(parts, o);
    };
    return new RedisUrl(mode, uris, prefix, new Replication(replicas, waitTimeout), connectTimeout,
        parts.description());
  }

  private static RedisURI standalone(UrlParts parts, Options o) {
    if (parts.hosts().size() > 1) {
      throw new IllegalArgumentException(String.format("a %s:// url names one server; for several, use"
          + " redis-sentinel:// or redis-cluster://: %s", parts.scheme(), parts.description()));
    }
    String db = parts.path().isEmpty() ? "" : parts.path().substring(1);
    if (!db.isEmpty()) {
      o.database(new Urls.Parameter("database (the path)", db, db));
    }
    UrlParts.Node n = parts.node(parts.hosts().get(0), RedisURI.DEFAULT_REDIS_PORT, KIND);
    return o.apply(RedisURI.Builder.redis(n.host(), n.port())).build();
  }

  /** {@code redis-sentinel://[auth@]h:p,h:p/master}: the credentials are the master's, as Lettuce has it. */
  private static RedisURI sentinel(UrlParts parts, Options o) {
    String master = parts.path().isEmpty() ? "" : Urls.decode(parts.path().substring(1), parts.description());
    if (master.isEmpty() || master.contains("/")) {
      throw new IllegalArgumentException(String.format(
          "redis sentinel url must name its master as the path, as in redis-sentinel://h1:26379,h2:26379/mymaster: %s",
          parts.description()));
    }
    RedisURI.Builder b = null;
    for (String entry : parts.hosts()) { // one at least: UrlParts refuses an empty host list
      UrlParts.Node n = parts.node(entry, RedisURI.DEFAULT_SENTINEL_PORT, KIND);
      b = b == null ? RedisURI.Builder.sentinel(n.host(), n.port(), master) : b.withSentinel(n.host(), n.port());
    }
    return o.apply(Objects.requireNonNull(b,
        () -> "redis sentinel url names no Sentinel: " + parts.description())).build();
  }

  /** Every seed node of {@code redis-cluster://[auth@]h:p,h:p} with the same credentials and options. */
  private static List<RedisURI> cluster(UrlParts parts, Options o) {
    if (!parts.path().isEmpty() && !parts.path().equals("/")) {
      throw new IllegalArgumentException(String.format(
          "redis cluster url takes no path (a cluster has one database): %s", parts.description()));
    }
    List<RedisURI> uris = new ArrayList<>();
    for (String entry : parts.hosts()) {
      UrlParts.Node n = parts.node(entry, RedisURI.DEFAULT_REDIS_PORT, KIND);
      uris.add(o.apply(RedisURI.Builder.redis(n.host(), n.port())).build());
    }
    return List.copyOf(uris);
  }

  /** Lettuce's settings of a URL, each checked as it is read. */
  private static final class Options {
    private final UrlParts parts;
    private final boolean tls;
    private Duration timeout = DEFAULT_TIMEOUT;
    private @Nullable Integer database;
    private @Nullable String clientName;
    private @Nullable String libraryName;
    private @Nullable String libraryVersion;
    private SslVerifyMode verifyPeer = SslVerifyMode.FULL;

    Options(UrlParts parts, boolean tls) {
      this.parts = parts;
      this.tls = tls;
    }

    void set(Urls.Parameter p, Mode mode) {
      switch (p.key()) {
        case "timeout" -> timeout = UrlParts.duration(p, false);
        case "database", "db" -> {
          if (mode == Mode.CLUSTER) {
            throw new IllegalArgumentException(String.format(
                "redis cluster url takes no %s (a cluster has one database): %s", p.key(), parts.description()));
          }
          database(p);
        }
        case "clientName" -> clientName = name(p);
        case "libraryName" -> libraryName = name(p);
        case "libraryVersion" -> libraryVersion = name(p);
        case "verifyPeer" -> verifyPeer = verifyMode(p);
        default -> throw new IllegalStateException("parameter " + p.key() + " is not Lettuce's");
      }
    }

    void database(Urls.Parameter p) {
      if (database != null) {
        throw new IllegalArgumentException(String.format(
            "redis url gives its database twice (path and parameter): %s", parts.description()));
      }
      database = whole(p);
    }

    RedisURI.Builder apply(RedisURI.Builder b) {
      b.withSsl(tls).withVerifyPeer(verifyPeer).withTimeout(timeout);
      if (database != null) {
        b.withDatabase(database);
      }
      if (clientName != null) {
        b.withClientName(clientName);
      }
      if (libraryName != null) {
        b.withLibraryName(libraryName);
      }
      if (libraryVersion != null) {
        b.withLibraryVersion(libraryVersion);
      }
      // An empty password sends no AUTH, as Lettuce's own parser has it.
      String password = parts.password();
      String user = parts.user();
      if (password != null && !password.isEmpty()) {
        if (user == null) {
          b.withPassword(password.toCharArray());
        } else {
          b.withAuthentication(user, password.toCharArray());
        }
      }
      return b;
    }
  }

  /** A whole number, 0 or more. */
  private static int whole(Urls.Parameter p) {
    try {
      int n = Integer.parseInt(p.value());
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(String.format(
        "%s must be a whole number, 0 or more: '%s'", p.key(), p.value()));
  }

  /** A client or library name, as Redis takes it: printable ASCII without spaces. */
  private static String name(Urls.Parameter p) {
    String v = p.value();
    if (v.isEmpty() || !v.chars().allMatch(c -> c > ' ' && c < 127)) {
      throw new IllegalArgumentException(String.format(
          "%s must be printable ASCII without spaces: '%s'", p.key(), v));
    }
    return v;
  }

  private static SslVerifyMode verifyMode(Urls.Parameter p) {
    try {
      return SslVerifyMode.valueOf(p.value().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(String.format(
          "verifyPeer must be FULL, CA or NONE: '%s'", p.value()), e);
    }
  }

  static String checkPrefix(String prefix) {
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException(String.format("prefix must not contain braces: '%s'", prefix));
    }
    return prefix;
  }
}
