package dev.dlock.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import redis.embedded.Redis;
import redis.embedded.RedisCluster;
import redis.embedded.core.RedisSentinelBuilder;

/**
 * A master with replicas and three Sentinels (embedded-redis's {@code RedisCluster}), ready for a
 * failover: it waits until every Sentinel sees the other two and the replicas. Sentinel has no
 * event for that, so it asks every 50 ms, up to a deadline, and fails loudly after it.
 */
final class SentinelServers implements AutoCloseable {
  static final String MASTER = "dlock";

  private final RedisCluster cluster;
  private final List<RedisClient> clients = new ArrayList<>();
  private final List<StatefulRedisSentinelConnection<String, String>> sentinels = new ArrayList<>();

  private SentinelServers(RedisCluster cluster) {
    this.cluster = cluster;
  }

  static SentinelServers start(int replicas) {
    RedisCluster cluster;
    try {
      cluster = RedisCluster.newRedisCluster()
          .withSentinelBuilder(new RedisSentinelBuilder().downAfterMilliseconds(1000).failOverTimeout(3000))
          .sentinelCount(3)
          .quorumSize(2)
          // Before the group: a group takes its ports when added, else 6379 and up, which clash.
          .ephemeral()
          .replicationGroup(MASTER, replicas)
          .build();
      cluster.start();
    } catch (IOException e) {
      throw new UncheckedIOException("the Sentinel topology did not start", e);
    }
    SentinelServers s = new SentinelServers(cluster);
    try {
      for (int port : cluster.sentinelPorts()) {
        RedisClient c = RedisClient.create(RedisURI.create("127.0.0.1", port));
        s.clients.add(c);
        s.sentinels.add(c.connectSentinel());
      }
      s.awaitReady(replicas, Duration.ofSeconds(30));
    } catch (RuntimeException | InterruptedException e) {
      s.close();
      throw new IllegalStateException("the Sentinel topology did not become ready", e);
    }
    return s;
  }

  /** {@code redis-sentinel://} with every Sentinel, then {@code query} (may be empty). */
  String url(String query) {
    StringJoiner nodes = new StringJoiner(",");
    cluster.sentinelPorts().forEach(p -> nodes.add("127.0.0.1:" + p));
    return "redis-sentinel://" + nodes + "/" + MASTER + (query.isEmpty() ? "" : "?" + query);
  }

  /** The master's port, as the first Sentinel names it. */
  int masterPort() {
    SocketAddress a = sentinels.get(0).sync().getMasterAddrByName(MASTER);
    return ((java.net.InetSocketAddress) a).getPort();
  }

  /** Stops the master's process, and waits until every Sentinel names another master. */
  int killMasterAndAwaitFailover(Duration timeout) throws IOException, InterruptedException {
    int old = masterPort();
    for (Redis server : cluster.servers()) {
      if (server.ports().contains(old)) {
        server.stop();
      }
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      boolean all = true;
      for (StatefulRedisSentinelConnection<String, String> s : sentinels) {
        SocketAddress a = s.sync().getMasterAddrByName(MASTER);
        all &= a != null && ((java.net.InetSocketAddress) a).getPort() != old;
      }
      if (all) {
        return masterPort();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no Sentinel failover within " + timeout);
      }
      Thread.sleep(50);
    }
  }

  private void awaitReady(int replicas, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      boolean ready = true;
      for (StatefulRedisSentinelConnection<String, String> s : sentinels) {
        Map<String, String> m = s.sync().master(MASTER);
        ready &= "2".equals(m.get("num-other-sentinels"))
            && String.valueOf(replicas).equals(m.get("num-slaves"));
      }
      if (ready) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the Sentinels did not see each other and the replicas within " + timeout);
      }
      Thread.sleep(50);
    }
  }

  @Override
  public void close() {
    sentinels.forEach(StatefulRedisSentinelConnection::close);
    clients.forEach(c -> c.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    try {
      cluster.stop();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
