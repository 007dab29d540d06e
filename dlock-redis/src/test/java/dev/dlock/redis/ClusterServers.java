package dev.dlock.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.StringJoiner;
import redis.embedded.RedisShardedCluster;
import redis.embedded.core.RedisServerBuilder;

/**
 * A Redis Cluster of three masters with a replica each (embedded-redis's {@code
 * RedisShardedCluster}), on ephemeral ports whose bus ports (p + 10000) are free too, on
 * redis-server 6.2 or 7.0. The builder waits for {@code cluster_state:ok} itself.
 */
final class ClusterServers implements AutoCloseable {
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
    try {
      // The ports must be chosen before the shards, or the builder uses 6379-6384.
      RedisShardedCluster cluster = RedisShardedCluster.newRedisCluster()
          .withServerBuilder(servers)
          .ephemeral()
          .initializationTimeout(Duration.ofSeconds(30))
          .shard("a", 1).shard("b", 1).shard("c", 1)
          .build();
      cluster.start();
      return new ClusterServers(cluster);
    } catch (IOException e) {
      throw new UncheckedIOException("the Redis Cluster did not start", e);
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

  @Override
  public void close() {
    try {
      cluster.stop();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
