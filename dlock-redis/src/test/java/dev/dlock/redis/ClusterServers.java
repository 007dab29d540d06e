package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.testkit.FreePorts;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import redis.embedded.RedisShardedCluster;
import redis.embedded.core.RedisServerBuilder;

/**
 * A Redis Cluster of three masters with a replica each (embedded-redis's {@code
 * RedisShardedCluster}, started by {@link Topologies}), on ports whose bus ports (p + 10000) are
 * free too, on redis-server 6.2 or 7.0. The builder waits for {@code cluster_state:ok} itself.
 */
final class ClusterServers implements AutoCloseable {
  /** How far above a node's port its cluster bus port is. */
  private static final int BUS = 10_000;

  private final RedisShardedCluster cluster;

  private ClusterServers(RedisShardedCluster cluster) {
    this.cluster = cluster;
  }

  /** On embedded-redis's own redis-server 6.2. */
  static ClusterServers start() {
    return start(new RedisServerBuilder());
  }

  /**
   * On redis-server 7.0, which shards pub/sub ({@link #redis7()}). The binary is copied into a
   * folder of this cluster's own: the servers write their cluster state files beside it, and a
   * later cluster reusing a port must not read them.
   */
  static ClusterServers startRedis7() {
    File copy;
    try {
      Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target", "redis-7-clusters")), "c");
      copy = Files.copy(redis7().toPath(), dir.resolve("redis-server")).toFile();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy redis-server 7", e);
    }
    return start(new RedisServerBuilder().executableProvider(() -> copy));
  }

  private static ClusterServers start(RedisServerBuilder servers) {
    // The ports before the shards, or the builder uses 6379-6384.
    ClusterServers started = new ClusterServers(Topologies.start("the Redis Cluster", () ->
        RedisShardedCluster.newRedisCluster()
            .withServerBuilder(servers)
            .serverPorts(Topologies.ports(6, () -> FreePorts.nextWithPartner(BUS)))
            .initializationTimeout(Duration.ofSeconds(30))
            .shard("a", 1).shard("b", 1).shard("c", 1)
            .build()));
    try {
      started.awaitEveryNodeOk();
    } catch (RuntimeException e) {
      started.close(); // the nodes must not outlive the test
      throw e;
    }
    return started;
  }

  /**
   * The builder waits until one node reports {@code cluster_state:ok}; the others may still answer
   * CLUSTERDOWN for a moment. Cluster state has no event to wait on, so this asks each node every
   * 20 ms, for up to 30 s.
   */
  private void awaitEveryNodeOk() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (int port : ports()) {
      RedisClient node = RedisClient.create(RedisURI.create("127.0.0.1", port));
      try (var c = node.connect()) {
        while (!c.sync().clusterInfo().contains("cluster_state:ok")) {
          if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("node 127.0.0.1:" + port + " did not reach cluster_state:ok in 30 s");
          }
          Thread.sleep(20);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for the cluster", e);
      } finally {
        node.shutdown();
      }
    }
  }

  /** {@code redis-cluster://} with every node, then {@code query} (may be empty). */
  String url(String query) {
    StringJoiner nodes = new StringJoiner(",");
    cluster.serverPorts().forEach(p -> nodes.add("127.0.0.1:" + p));
    return "redis-cluster://" + nodes + (query.isEmpty() ? "" : "?" + query);
  }

  /**
   * The static redis-server 7.0.15 that the build unpacks from Signal's embedded-redis jar on Maven
   * Central into {@code target/redis-7} (see this module's pom). Missing, it fails the test.
   */
  static File redis7() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("mac") ? "darwin" : "linux";
    String arch = switch (System.getProperty("os.arch")) {
      case "aarch64", "arm64" -> "arm64";
      case "x86", "i386" -> "386";
      default -> "amd64";
    };
    File binary = Path.of("target", "redis-7", "redis-server-7.0.15-" + os + "-" + arch).toFile();
    if (!binary.canExecute()) {
      throw new IllegalStateException("no redis-server 7 at " + binary.getAbsolutePath()
          + ": the build unpacks it in generate-test-resources (./mvnw verify does)");
    }
    return binary;
  }

  /** The ports of every node, masters and replicas. */
  java.util.List<Integer> ports() {
    return cluster.serverPorts();
  }

  /** {@code redis://} for one node, for an admin client. */
  String seed() {
    return "redis://127.0.0.1:" + cluster.serverPorts().get(0);
  }

  /**
   * Takes a lock under {@code prefix} and checks that the replica of the lock's master holds the
   * token counter at exactly the token: scripts replicate by their effects, so the clock reading a
   * script drew from reaches the replica as written, never drawn again there. Replication has no
   * event to wait on, so this asks the replica every 10 ms, for up to 10 s.
   */
  void assertTokenReplicatedAsDrawn(String prefix) throws InterruptedException {
    String name = "replicated";
    long token;
    try (LockClient c = LockClient.builder().url(url("prefix=" + prefix)).build();
        Lease lease = c.lock(name).acquire()) {
      token = lease.token();
    }
    byte[] key = new Keys(prefix).of(name)[1];
    RedisClusterClient admin = RedisClusterClient.create(RedisURI.create(seed()));
    try {
      Partitions partitions = admin.getPartitions();
      RedisClusterNode master = partitions.getMasterBySlot(SlotHash.getSlot(key));
      RedisClusterNode replica = partitions.stream()
          .filter(n -> master.getNodeId().equals(n.getSlaveOf())).findFirst().orElseThrow();
      RedisClient node = RedisClient.create(RedisURI.create("127.0.0.1", replica.getUri().getPort()));
      try (var c = node.connect()) {
        c.sync().readOnly();
        String counter = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Long.toString(token).equals(counter) && System.nanoTime() < deadline) {
          Thread.sleep(10);
          counter = c.sync().get(new String(key, StandardCharsets.UTF_8));
        }
        assertThat(counter).as("the token counter on the replica").isEqualTo(Long.toString(token));
      } finally {
        node.shutdown();
      }
    } finally {
      admin.shutdown();
    }
  }

  /** Deletes every key of lock {@code name} under {@code prefix} on the master that holds them. */
  void forget(String prefix, String name) {
    RedisClusterClient admin = RedisClusterClient.create(RedisURI.create(seed()));
    try (var c = admin.connect()) {
      c.sync().del(RedisTestServer.keysOf(prefix, name));
    } finally {
      admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Override
  public void close() {
    try {
      cluster.stop();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
