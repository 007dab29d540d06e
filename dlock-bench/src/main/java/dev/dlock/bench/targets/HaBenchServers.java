package dev.dlock.bench.targets;

import dev.dlock.testkit.FreePorts;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import redis.embedded.Redis;
import redis.embedded.RedisCluster;
import redis.embedded.RedisServer;
import redis.embedded.core.ExecutableProvider;
import redis.embedded.core.RedisSentinelBuilder;
import redis.embedded.core.RedisServerBuilder;

/**
 * The replicated Redis servers of a bench run, shared by the {@code redis-ha} targets: a Sentinel
 * topology (one master {@value #MASTER}, one replica, three Sentinels, quorum 2) and five
 * independent masters for Redlock. Why a class of its own, like {@link RedisBenchServer}: every
 * HA target of a run must meet the same servers, started once, lazily by the first target that
 * needs them, stopped by a shutdown hook; JMH forks get the addresses through system properties
 * (set them by hand to use other servers). The Sentinel half is handed out only once every Sentinel
 * sees the two others and the replica, so no target measures a topology still forming. All of them
 * run the redis-server 6.2 bundled with embedded-redis, unpacked into the build's target folder,
 * without persistence and with diskless replication, so no disk write is measured.
 */
public final class HaBenchServers {
  /** Sentinel addresses, {@code 127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3}. */
  public static final String SENTINELS_PROPERTY = "dlock.bench.sentinels";
  /** The master and replica addresses behind the Sentinels, {@code host:port,host:port}. */
  public static final String REPLICATED_PROPERTY = "dlock.bench.sentinel.servers";
  /** The five Redlock masters, {@code 127.0.0.1:p1,...,127.0.0.1:p5}. */
  public static final String REDLOCK_PROPERTY = "dlock.bench.redlock.nodes";
  static final String MASTER = "dlock";
  static final int REDLOCK_NODES = 5;

  static final String LEGEND = "redis-ha targets: embedded redis-server 6.2 on loopback, no"
      + " persistence, diskless replication. Sentinel: one master '" + MASTER + "', one replica,"
      + " three Sentinels (quorum 2, down-after 1 s, failover timeout 3 s). Redlock: five"
      + " independent masters. dlock-sentinel: dlock via redis-sentinel://, one command and one"
      + " pub/sub connection per client. dlock-sentinel-wait: the same with waitReplicas=1&waitTimeout=1s"
      + " (WAIT 1 after every grant and renewal). redisson-sentinel: Redisson RLock in sentinel mode"
      + " (useSentinelServers, defaults). redisson-replicated: Redisson RLock in replicated mode on the same"
      + " master and replica (useReplicatedServers, defaults). dlock-redlock: dlock via redlock:// over the five masters,"
      + " defaults. redisson-redlock: Redisson RedissonRedLock over five RLocks, one RedissonClient"
      + " per master and per bench client (defaults; waits by retrying, so W4 cannot see a waiter"
      + " queue and the holder yields 200 us instead).";

  private static final String[] NO_DISK = {"save \"\"", "appendonly no", "repl-diskless-sync yes",
      "repl-diskless-sync-delay 0", "repl-diskless-load on-empty-db"};

  private HaBenchServers() {}

  /** The Sentinels' addresses, starting the topology on first use. */
  static synchronized String sentinels() {
    String sentinels = System.getProperty(SENTINELS_PROPERTY);
    if (sentinels != null) {
      return sentinels;
    }
    RedisCluster cluster;
    try {
      File dir = dir();
      ExecutableProvider binary = ExecutableProvider.newJarResourceProvider(dir);
      RedisServerBuilder servers = new RedisServerBuilder().executableProvider(binary).bind("127.0.0.1")
          .setting("dir " + dir.getAbsolutePath());
      Arrays.stream(NO_DISK).forEach(servers::setting);
      cluster = RedisCluster.newRedisCluster()
          .withServerBuilder(servers)
          .withSentinelBuilder(new RedisSentinelBuilder().executableProvider(binary).bind("127.0.0.1")
              .downAfterMilliseconds(1000).failOverTimeout(3000))
          .sentinelPorts(List.of(FreePorts.next(), FreePorts.next(), FreePorts.next()))
          .serverPorts(List.of(FreePorts.next(), FreePorts.next())) // before the group, which takes them
          .quorumSize(2).replicationGroup(MASTER, 1).build();
      cluster.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the embedded Sentinel topology", e);
    }
    stopOnExit(cluster, "bench-sentinel-stop");
    List<String> addresses = new ArrayList<>();
    cluster.sentinelPorts().forEach(p -> addresses.add("127.0.0.1:" + p));
    awaitSentinels(addresses, Duration.ofSeconds(30));
    List<String> data = new ArrayList<>();
    cluster.serverPorts().forEach(p -> data.add("127.0.0.1:" + p));
    System.setProperty(REPLICATED_PROPERTY, String.join(",", data));
    sentinels = String.join(",", addresses);
    System.setProperty(SENTINELS_PROPERTY, sentinels);
    return sentinels;
  }

  /** The master and replica behind the Sentinels, as {@code host:port}s, starting them on first use. */
  static List<String> replicatedServers() {
    sentinels();
    return List.of(System.getProperty(REPLICATED_PROPERTY).split(","));
  }

  /** dlock's URL for the Sentinel-watched master, with {@code query} after the {@code ?}. */
  static String sentinelUrl(String query) {
    return "redis-sentinel://" + sentinels() + "/" + MASTER + "?" + query;
  }

  /** The five Redlock masters' addresses, starting them on first use. */
  static synchronized List<String> redlockNodes() {
    String nodes = System.getProperty(REDLOCK_PROPERTY);
    if (nodes != null) {
      return List.of(nodes.split(","));
    }
    List<String> addresses = new ArrayList<>();
    List<RedisServer> started = new ArrayList<>();
    try {
      File dir = dir();
      for (int i = 0; i < REDLOCK_NODES; i++) {
        int port = FreePorts.next();
        RedisServerBuilder b = RedisServer.newRedisServer().executableProvider(ExecutableProvider.newJarResourceProvider(dir))
            .port(port).bind("127.0.0.1");
        Arrays.stream(NO_DISK).forEach(b::setting);
        RedisServer server = b.build();
        server.start();
        started.add(server);
        addresses.add("127.0.0.1:" + port);
      }
    } catch (IOException e) {
      started.forEach(HaBenchServers::stopQuietly);
      throw new UncheckedIOException("cannot start the embedded Redlock masters", e);
    }
    started.forEach(s -> stopOnExit(s, "bench-redlock-stop"));
    System.setProperty(REDLOCK_PROPERTY, String.join(",", addresses));
    return List.copyOf(addresses);
  }

  /** dlock's URL for the five masters, with {@code query} after the {@code ?}. */
  static String redlockUrl(String query) {
    return "redlock://" + String.join(",", redlockNodes()) + "?" + query;
  }

  /** What a JMH fork needs on its command line to reach the Sentinel topology. */
  static List<String> sentinelForkJvmArgs() {
    String sentinels = sentinels();
    return List.of("-D" + SENTINELS_PROPERTY + "=" + sentinels,
        "-D" + REPLICATED_PROPERTY + "=" + System.getProperty(REPLICATED_PROPERTY, ""));
  }

  /** What a JMH fork needs on its command line to reach the Redlock masters. */
  static List<String> redlockForkJvmArgs() {
    return List.of("-D" + REDLOCK_PROPERTY + "=" + String.join(",", redlockNodes()));
  }

  /** Polls every Sentinel each 50 ms until all see two other Sentinels and one replica. */
  private static void awaitSentinels(List<String> addresses, Duration timeout) {
    List<RedisClient> clients = new ArrayList<>();
    List<StatefulRedisSentinelConnection<String, String>> connections = new ArrayList<>();
    try {
      for (String a : addresses) {
        RedisClient c = RedisClient.create(RedisURI.create("redis://" + a));
        clients.add(c);
        connections.add(c.connectSentinel());
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        boolean ready = true;
        for (StatefulRedisSentinelConnection<String, String> s : connections) {
          Map<String, String> m = s.sync().master(MASTER);
          ready &= "2".equals(m.get("num-other-sentinels")) && "1".equals(m.get("num-slaves"));
        }
        if (ready) {
          return;
        }
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("the Sentinels did not see each other and the replica within " + timeout);
        }
        Thread.sleep(50);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the Sentinels", e);
    } finally {
      connections.forEach(StatefulRedisSentinelConnection::close);
      clients.forEach(c -> c.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    }
  }

  private static File dir() throws IOException {
    File dir = RedisBenchServer.binaryDir();
    Files.createDirectories(dir.toPath());
    return dir;
  }

  private static void stopOnExit(Redis redis, String name) {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stopQuietly(redis), name));
  }

  private static void stopQuietly(Redis redis) {
    try {
      redis.stop();
    } catch (IOException e) {
      System.err.println("bench: stopping an embedded redis failed: " + e);
    }
  }
}
