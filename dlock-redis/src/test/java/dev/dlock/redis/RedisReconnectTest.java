package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockKind;
import dev.dlock.testkit.RecordingContext;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The backend tells the engine at once when the server behind it may have changed (a reconnect, a
 * Sentinel failover, a cluster topology change, a Redlock node back), and never otherwise: a
 * {@link RecordingContext} records every report.
 */
class RedisReconnectTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration QUIET = Duration.ofMillis(1500);
  private static final Duration SOON = Duration.ofSeconds(10);

  @Test
  void aServerRestartIsReportedAndNothingElseIs() throws Exception {
    try (RedisTestServer server = RedisTestServer.start()) {
      RecordingContext context = new RecordingContext("restart");
      LockBackend backend = opened(server.url(), context);
      try {
        workAndAssertQuiet(backend, context);
        server.restart();
        assertThat(context.nextReconnect(SOON)).as("the report of the reconnect")
            .contains(server.url()).contains("reconnected to");
      } finally {
        backend.close();
      }
    }
  }

  @Test
  void aHolderHearsOfALeaseARestartForgotLongBeforeItsNextRenewal() throws Exception {
    try (RedisTestServer server = RedisTestServer.start();
        LockClient client = LockClient.builder().url(server.url()).leaseTime(LEASE).build()) {
      Lease held = client.lock("forgotten").acquire();
      server.restart();
      // The next scheduled renewal is LEASE / 3 = 10 s away: only the re-check on reconnect is this quick.
      held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
      assertThat(held.isValid()).isFalse();
    }
  }

  @Test
  void aSentinelFailoverIsReportedBothBySentinelAndByTheReconnect() throws Exception {
    try (SentinelServers servers = SentinelServers.start(1)) {
      RecordingContext context = new RecordingContext("failover");
      LockBackend backend = opened(servers.url(""), context);
      try {
        workAndAssertQuiet(backend, context);
        int promoted = servers.killMasterAndAwaitFailover(Duration.ofSeconds(30));
        List<String> reports = reportsUntil(context, r -> r.stream().anyMatch(m -> m.contains("Sentinel moved"))
            && r.stream().anyMatch(m -> m.contains("reconnected to")));
        assertThat(reports).anySatisfy(m -> assertThat(m).contains("Sentinel moved master " + SentinelServers.MASTER)
            .endsWith(":" + promoted));
        assertThat(reports).anySatisfy(m -> assertThat(m).contains("reconnected to").endsWith(":" + promoted));
      } finally {
        backend.close();
      }
    }
  }

  @Test
  void aClusterTopologyChangeIsReported() throws Exception {
    try (ClusterServers servers = ClusterServers.start()) {
      RecordingContext context = new RecordingContext("cluster");
      LockBackend backend = opened(servers.url(""), context);
      try {
        workAndAssertQuiet(backend, context);
        // The replica of the master that serves the lock takes over (no vote, so no waiting on
        // the cluster); once the old master knows, the next command sent to it is MOVED.
        int slot = SlotHash.getSlot(new Keys(RedisUrl.DEFAULT_PREFIX).lock("work"));
        String clusterNodes = onNode(servers.ports().get(0), c -> c.clusterNodes());
        Partitions nodes = ClusterPartitionParser.parse(clusterNodes);
        RedisClusterNode master = nodes.getMasterBySlot(slot);
        int replica = onlineReplicaOf(master.getUri().getPort());
        onNode(replica, c -> c.clusterFailover(false, true));
        awaitRole(replica, "role:master");
        awaitRole(master.getUri().getPort(), "role:slave");
        assertThat(reportWhileUsed(backend, context)).contains("the cluster topology changed");
        // And back, at once: a change within Lettuce's default back-off between adaptive refreshes
        // (30 s) is reported too. Whatever the first change still reports is taken first.
        while (context.nextReconnect(Duration.ofMillis(500)) != null) {
          // a late report of the first change
        }
        onNode(master.getUri().getPort(), c -> c.clusterFailover(false, true));
        awaitRole(master.getUri().getPort(), "role:master");
        awaitRole(replica, "role:slave");
        assertThat(reportWhileUsed(backend, context)).as("the report of the second change")
            .contains("the cluster topology changed");
      } finally {
        backend.close();
      }
    }
  }

  @Test
  void aRedlockNodeThatComesBackIsReported() throws Exception {
    try (RedisTestServer a = RedisTestServer.start(); RedisTestServer b = RedisTestServer.start();
        RedisTestServer c = RedisTestServer.start()) {
      String url = "redlock://127.0.0.1:" + a.port() + ",127.0.0.1:" + b.port() + ",127.0.0.1:" + c.port();
      RecordingContext context = new RecordingContext("redlock");
      LockBackend backend = new RedlockBackendProvider().open(url);
      backend.start(context);
      try {
        workAndAssertQuiet(backend, context);
        b.restart();
        assertThat(context.nextReconnect(SOON)).as("the report of the node's return")
            .contains(url).contains("node 127.0.0.1:" + b.port() + " reconnected");
      } finally {
        backend.close();
      }
    }
  }

  private static LockBackend opened(String url, RecordingContext context) {
    LockBackend backend = new RedisBackendProvider().open(url);
    backend.start(context);
    return backend;
  }

  /** Grants, renews, inspects and releases a lock, and sees no report come in meanwhile. */
  private static void workAndAssertQuiet(LockBackend backend, RecordingContext context) throws Exception {
    for (int i = 0; i < 3; i++) {
      String owner = context.clientId() + ":" + i;
      long token = backend.tryAcquire(LockRequest.exclusive("work", owner, LEASE, false)).token();
      Grant g = new Grant("work", owner, token, LockKind.EXCLUSIVE);
      assertThat(backend.renew(List.of(g), LEASE)).isEmpty();
      assertThat(backend.inspect("work")).isPresent();
      assertThat(backend.release(g)).isTrue();
    }
    assertThat(context.nextReconnect(QUIET)).as("a report without a reconnect").isNull();
  }

  /** The reports that came in until {@code enough} holds of them, or {@link #SOON} passed. */
  private static List<String> reportsUntil(RecordingContext context, java.util.function.Predicate<List<String>> enough)
      throws InterruptedException {
    List<String> reports = new ArrayList<>();
    long deadline = System.nanoTime() + SOON.toNanos();
    while (!enough.test(reports) && System.nanoTime() < deadline) {
      String r = context.nextReconnect(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
      if (r != null) {
        reports.add(r);
      }
    }
    return reports;
  }

  /**
   * The first report that comes while the backend is in use: a lock read every 200 ms, as a client
   * at work sends commands, each of which the old master answers with MOVED until a refresh.
   */
  private static String reportWhileUsed(LockBackend backend, RecordingContext context) throws InterruptedException {
    long deadline = System.nanoTime() + SOON.toNanos();
    while (System.nanoTime() < deadline) {
      backend.inspect("work");
      String r = context.nextReconnect(Duration.ofMillis(200));
      if (r != null) {
        return r;
      }
    }
    return "no report within " + SOON;
  }

  private static <T> T onNode(int port, Function<io.lettuce.core.api.sync.RedisCommands<String, String>, T> command) {
    RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      return command.apply(c.sync());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /**
   * The port of a replica that the master on {@code port} itself reports online. The other nodes
   * learn of a replica by gossip, so their CLUSTER NODES may not list it yet when the cluster is ok.
   */
  private static int onlineReplicaOf(int port) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    Pattern online = Pattern.compile("slave\\d+:ip=[^,]+,port=(\\d+),state=online");
    while (true) {
      Matcher m = online.matcher(onNode(port, c -> c.info("replication")));
      if (m.find()) {
        return Integer.parseInt(m.group(1));
      }
      assertThat(System.nanoTime()).as("an online replica of port %d", port).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  /**
   * Waits until INFO replication of the node on {@code port} says {@code role}; a failover has no
   * event, and gossip carries a takeover to the old master within about half the node timeout.
   */
  private static void awaitRole(int port, String role) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!onNode(port, c -> c.info("replication")).contains(role)) {
      assertThat(System.nanoTime()).as("%s on port %d", role, port).isLessThan(deadline);
      Thread.sleep(50);
    }
  }
}
