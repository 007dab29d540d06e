package dev.dlock.bench.targets;

import dev.dlock.testkit.FreePorts;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import redis.embedded.RedisServer;
import redis.embedded.core.ExecutableProvider;

/**
 * The one redis-server of a bench run, shared by every Redis target so they compete on the same
 * server. The first Redis target to need it starts the redis-server bundled with embedded-redis
 * (6.2) on a free loopback port, without persistence; a JVM shutdown hook stops it. The binary is
 * unpacked into the build's target folder, not the system's temp folder.
 *
 * <p>JMH forks get the URL through the {@value #URL_PROPERTY} system property; setting it by hand
 * points the bench at an existing server instead.
 */
public final class RedisBenchServer {
  /** The {@code redis://} URL of the server to use; set once the embedded one is up. */
  public static final String URL_PROPERTY = "dlock.bench.redis.url";

  static final String LEGEND = "Redis targets: one embedded redis-server 6.2 on loopback for the"
      + " whole run (no persistence); each client has its own connections. dlock-redis: dlock's"
      + " Redis backend, one command and one pub/sub connection per client. redisson, redisson-fair: Redisson RLock and"
      + " RFairLock, Redisson defaults (30 s watchdog). spring-redis: Spring Integration"
      + " RedisLockRegistry on Spring Data Redis with Lettuce, its defaults (spin lock).";

  private RedisBenchServer() {}

  /** The server's URL, starting the embedded server on first use. */
  public static synchronized String url() {
    String url = System.getProperty(URL_PROPERTY);
    if (url != null) {
      return url;
    }
    int port = FreePorts.next();
    RedisServer server;
    try {
      File dir = binaryDir();
      Files.createDirectories(dir.toPath());
      server = RedisServer.newRedisServer()
          .executableProvider(ExecutableProvider.newJarResourceProvider(dir))
          .port(port).bind("127.0.0.1").setting("save \"\"").setting("appendonly no").build();
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the embedded redis-server", e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.stop();
      } catch (IOException e) {
        System.err.println("bench: stopping the embedded redis-server failed: " + e);
      }
    }, "bench-redis-stop"));
    url = "redis://127.0.0.1:" + port;
    System.setProperty(URL_PROPERTY, url);
    return url;
  }

  /** What a JMH fork needs on its command line to reach this server. */
  static List<String> forkJvmArgs() {
    return List.of("-D" + URL_PROPERTY + "=" + url());
  }

  /** A plain connection for reading INFO; the caller closes the client. */
  static RedisClient admin() {
    RedisURI uri = RedisURI.create(url());
    uri.setTimeout(Duration.ofSeconds(10));
    return RedisClient.create(uri);
  }

  /** The commands that run a script, as INFO commandstats names them. */
  private static final Set<String> SCRIPT_CALLS =
      Set.of("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro");

  /**
   * Calls since start, from INFO commandstats, INFO and PING left out: {script calls, all calls},
   * where all calls count the commands a script runs as well as the script call.
   */
  public static long[] commandCalls(StatefulRedisConnection<String, String> c) {
    long[] calls = new long[2];
    for (String line : c.sync().info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")
          && !line.startsWith("cmdstat_ping:")) {
        String command = line.substring("cmdstat_".length(), line.indexOf(':'));
        int from = line.indexOf("calls=") + "calls=".length();
        long n = Long.parseLong(line.substring(from, line.indexOf(',', from)));
        calls[0] += SCRIPT_CALLS.contains(command) ? n : 0;
        calls[1] += n;
      }
    }
    return calls;
  }

  static File binaryDir() {
    try {
      Path code = Path.of(RedisBenchServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return code.getParent().resolve("embedded-redis").toFile();
    } catch (Exception e) {
      return Path.of("dlock-bench", "target", "embedded-redis").toFile();
    }
  }

}
