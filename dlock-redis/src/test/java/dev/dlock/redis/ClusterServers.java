package dev.dlock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.StringJoiner;
import redis.embedded.RedisShardedCluster;

/**
 * A Redis Cluster of three masters with a replica each (embedded-redis's {@code
 * RedisShardedCluster}), on ephemeral ports whose bus ports (p + 10000) are free too. The builder
 * waits for {@code cluster_state:ok} itself.
 */
final class ClusterServers implements AutoCloseable {
  private final RedisShardedCluster cluster;

  private ClusterServers(RedisShardedCluster cluster) {
    this.cluster = cluster;
  }

  static ClusterServers start() {
    try {
      // The ports must be chosen before the shards, or the builder uses 6379-6384.
      RedisShardedCluster cluster = RedisShardedCluster.newRedisCluster()
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
