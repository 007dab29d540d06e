package dev.dlock.redis;

import dev.dlock.testkit.FreePorts;
import dev.dlock.testkit.Signals;
import io.lettuce.core.RedisClient;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
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
 * A master with replicas and three Sentinels (embedded-redis's {@code RedisCluster}, started by
 * {@link Topologies}), ready for a failover: it waits until every Sentinel sees the other two and
 * the replicas. Sentinel has no event for that, so it asks every 50 ms, up to a deadline, and fails
 * loudly after it.
 */
@SuppressWarnings("deprecation") // slaves(): the name older Sentinels answer to
final class SentinelServers implements AutoCloseable {
  static final String MASTER = "dlock";

  private final RedisCluster cluster;
  private final List<RedisClient> clients = new ArrayList<>();
  private final List<StatefulRedisSentinelConnection<String, String>> sentinels = new ArrayList<>();
  private long pausedReplica;

  private SentinelServers(RedisCluster cluster) {
    this.cluster = cluster;
  }

  static SentinelServers start(int replicas) {
    // The ports before replicationGroup(): the group takes its ports when it is added.
    RedisCluster cluster = Topologies.start("the Sentinel topology", () -> RedisCluster.newRedisCluster()
        .withSentinelBuilder(new RedisSentinelBuilder().downAfterMilliseconds(1000).failOverTimeout(3000))
        .sentinelPorts(Topologies.ports(3, FreePorts::next))
        .serverPorts(Topologies.ports(1 + replicas, FreePorts::next))
        .quorumSize(2)
        .replicationGroup(MASTER, replicas)
        .build());
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
    return awaitFailover(stopMaster(), timeout);
  }

  /** Stops the master's process; returns its port. */
  int stopMaster() throws IOException {
    int old = masterPort();
    for (Redis server : cluster.servers()) {
      if (server.ports().contains(old)) {
        server.stop();
      }
    }
    return old;
  }

  /**
   * Makes sure the one replica has every write the master took so far, then cuts it off: its
   * process is paused (SIGSTOP) and the master drops its link, so nothing the master takes from
   * now on reaches it, and it cannot reconnect while paused. {@link #resumeReplica} lets it go on.
   */
  void cutOffReplica() throws IOException, InterruptedException {
    try (var master = admin(masterPort())) {
      master.sync().set("dlock-test:replicated", "yes");
      if (master.sync().waitForReplication(1, 10_000) < 1) {
        throw new AssertionError("the replica did not catch up within 10 s");
      }
      Map<String, String> replica = sentinels.get(0).sync().slaves(MASTER).get(0);
      long pid;
      try (var c = admin(Integer.parseInt(replica.get("port")))) {
        pid = Long.parseLong(c.sync().info("server").replaceAll("(?s).*process_id:(\\d+).*", "$1"));
      }
      Signals.send("STOP", pid);
      pausedReplica = pid;
      master.sync().clientKill(KillArgs.Builder.typeSlave());
    }
  }

  /** Lets the paused replica run again (SIGCONT). */
  void resumeReplica() {
    if (pausedReplica != 0) {
      Signals.send("CONT", pausedReplica);
      pausedReplica = 0;
    }
  }

  private StatefulRedisConnection<String, String> admin(int port) {
    RedisClient c = RedisClient.create(RedisURI.create("127.0.0.1", port));
    clients.add(c);
    return c.connect();
  }

  /** Waits until every Sentinel names a master other than the one on port {@code old}. */
  int awaitFailover(int old, Duration timeout) throws InterruptedException {
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
    resumeReplica(); // a paused process would not stop
    sentinels.forEach(StatefulRedisSentinelConnection::close);
    clients.forEach(c -> c.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    try {
      cluster.stop();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
