package dev.dlock.redis;

import dev.dlock.BackendUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * The command and pub/sub connections of one backend, to one server, a Sentinel-watched master or
 * a cluster. Why here: the backend's scripts run the same on all three, and only connecting,
 * subscribing and {@code WAIT} differ. On a cluster, Redis 6.2 carries a PUBLISH to every node, but
 * counts only the subscribers of the node that ran it; the release script counts listeners to skip
 * departed clients, so the client subscribes on every node, and reads only the copy that the node
 * serving the lock delivers. A copy that slips through while the topology changes is harmless
 * ({@link QueuedOwners} remembers taken grants). A Redis 7 cluster shards pub/sub instead: a
 * message stays on the shard of its channel's slot, so the client subscribes (SSUBSCRIBE) to its
 * channel of a slot ({@link Keys}) on that slot's master, the first time it waits there, and
 * again after the topology changes.
 */
final class Connections implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Connections.class);
  /** The most commands one connection holds queued or awaiting replies; more fail at once. */
  static final int QUEUE_LIMIT = 10_000;

  private final ClientResources resources;
  private final AbstractRedisClient client;
  private final StatefulConnection<byte[], byte[]> connection;
  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final StatefulRedisPubSubConnection<byte[], byte[]> pubSub;
  private final boolean sharded;
  /** With sharded pub/sub: the slots whose channel this client listens on. */
  private final Set<Integer> listening = ConcurrentHashMap.newKeySet();
  private final @Nullable Disposable topologyWatch;
  private final ReconnectWatch watch;

  private Connections(ClientResources resources, AbstractRedisClient client,
      StatefulConnection<byte[], byte[]> connection, RedisClusterAsyncCommands<byte[], byte[]> commands,
      StatefulRedisPubSubConnection<byte[], byte[]> pubSub, boolean sharded, ReconnectWatch watch) {
    this.resources = resources;
    this.watch = watch;
    this.client = client;
    this.connection = connection;
    this.commands = commands;
    this.pubSub = pubSub;
    this.sharded = sharded;
    this.topologyWatch = !sharded ? null : resources.eventBus().get()
        .filter(ClusterTopologyChangedEvent.class::isInstance)
        .subscribe(e -> listening.clear());
  }

  /** Connects both connections, or throws BackendUnavailableException naming the URL. */
  /**
   * The least time between two topology refreshes that a MOVED or a reconnect triggers. Lettuce's
   * default, 30 s, left a failover that came within 30 s of the last refresh unseen, and so its
   * held leases unchecked until their next renewal; one a second still keeps a burst of MOVED
   * replies from becoming a burst of refreshes.
   */
  static final Duration ADAPTIVE_REFRESH_GAP = Duration.ofSeconds(1);

  static Connections open(RedisUrl url) {
    ClientResources resources = resources();
    ReconnectWatch watch = new ReconnectWatch(url.description());
    AbstractRedisClient client = null;
    StatefulConnection<byte[], byte[]> connection = null;
    StatefulRedisPubSubConnection<byte[], byte[]> pubSub = null;
    try {
      if (url.mode() == RedisUrl.Mode.CLUSTER) {
        RedisClusterClient cluster = RedisClusterClient.create(resources, url.uris());
        client = cluster;
        ClusterClientOptions.Builder options = ClusterClientOptions.builder()
            .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                .enableAllAdaptiveRefreshTriggers().adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_GAP).build());
        cluster.setOptions(options(options, url.connectTimeout(), DisconnectedBehavior.ACCEPT_COMMANDS).build());
        watch.watch(cluster, resources, true);
        StatefulRedisClusterConnection<byte[], byte[]> c = connect(() -> cluster.connect(ByteArrayCodec.INSTANCE));
        connection = c;
        StatefulRedisClusterPubSubConnection<byte[], byte[]> p = connect(() -> cluster.connectPubSub(ByteArrayCodec.INSTANCE));
        p.setNodeMessagePropagation(true);
        pubSub = p;
        return new Connections(resources, client, c, c.async(), p, majorVersion(c, url), watch);
      }
      RedisClient single = RedisClient.create(resources);
      client = single;
      ClientOptions options = options(ClientOptions.builder(), url.connectTimeout(),
          DisconnectedBehavior.ACCEPT_COMMANDS).build();
      single.setOptions(options);
      watch.watch(single, resources, false);
      if (url.mode() == RedisUrl.Mode.SENTINEL) {
        watch.watchSentinels(url.uri(), resources, options);
      }
      StatefulRedisConnection<byte[], byte[]> c = connect(() -> single.connect(ByteArrayCodec.INSTANCE, url.uri()));
      connection = c;
      pubSub = connect(() -> single.connectPubSub(ByteArrayCodec.INSTANCE, url.uri()));
      return new Connections(resources, client, c, c.async(), pubSub, false, watch);
    } catch (RuntimeException e) {
      closeAll(watch, null, pubSub, connection, client, resources);
      throw new BackendUnavailableException(String.format("cannot connect to redis %s: %s",
          url.description(), Calls.reason(e)), e);
    }
  }

  /**
   * Connects, and once more if Lettuce lost the reason the first connect failed. Why: when the
   * server refuses the handshake (a wrong password) before Lettuce's own connect listener runs,
   * Lettuce reports only "RedisHandshakeHandler not registered", and the user would never see the
   * server's WRONGPASS or NOAUTH; a second connect gets the server's answer. Any other failure, or
   * a second one, is thrown as it is.
   */
  private static <T> T connect(Supplier<T> connect) {
    try {
      return connect.get();
    } catch (RedisConnectionException e) {
      if (!lostReason(e)) {
        throw e;
      }
      try {
        return connect.get();
      } catch (RuntimeException again) {
        again.addSuppressed(e);
        throw again;
      }
    }
  }

  private static boolean lostReason(Throwable e) {
    for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof IllegalStateException && String.valueOf(t.getMessage()).contains("HandshakeHandler not registered")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The connect, reconnect and queueing options of every Redis client of dlock. Why: a connection
   * that drops comes back by itself ({@link #resources()} paces the attempts), and a connect to a
   * server that does not answer gives up after {@code connectTimeout}. {@code whileDown} says what
   * a command sent while the connection is down does: the single-server, Sentinel and cluster
   * backends queue it, so that a reconnect within the caller's deadline (a blip, a failover) still
   * serves it; the caller's wait gives up by that deadline and cancels the command, and Lettuce
   * never sends a cancelled one. The queue is bounded all the same, so that an outage cannot pile
   * commands up: past {@link #QUEUE_LIMIT}, a command fails at once.
   */
  static <B extends ClientOptions.Builder> B options(B b, Duration connectTimeout, DisconnectedBehavior whileDown) {
    b.autoReconnect(true)
        .disconnectedBehavior(whileDown)
        .requestQueueSize(QUEUE_LIMIT)
        .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
        .timeoutOptions(TimeoutOptions.enabled());
    return b;
  }

  /** Reports every reconnect, failover and topology change to {@code reconnected} from now on. */
  void reportReconnects(Consumer<String> reconnected) {
    watch.start(reconnected);
  }

  /**
   * The threads and reconnect policy of one backend's Lettuce client: two I/O threads, and back
   * within a second of the server (the default backs off up to 30 s).
   */
  static ClientResources resources() {
    return DefaultClientResources.builder()
        .ioThreadPoolSize(2)
        .computationThreadPoolSize(2) // Lettuce's minimum
        .reconnectDelay(Delay.exponential(Duration.ofMillis(5), Duration.ofSeconds(1), 2,
            TimeUnit.MILLISECONDS))
        .build();
  }

  /** True if the node that answers is Redis 7 or later (sharded pub/sub), as INFO server gives it. */
  private static boolean majorVersion(StatefulRedisClusterConnection<byte[], byte[]> c, RedisUrl url) {
    String info = c.sync().info("server");
    Matcher m = Pattern.compile("redis_version:(\\d+)").matcher(info);
    if (!m.find()) {
      throw new IllegalStateException("redis " + url.description() + " gave no redis_version in INFO server");
    }
    return Integer.parseInt(m.group(1)) >= 7;
  }

  /** True on a cluster that shards pub/sub (Redis 7 and later). */
  boolean sharded() {
    return sharded;
  }

  RedisClusterAsyncCommands<byte[], byte[]> commands() {
    return commands;
  }

  boolean isOpen() {
    return connection.isOpen();
  }

  boolean isCluster() {
    return connection instanceof StatefulRedisClusterConnection;
  }

  /**
   * Lets {@code inbox} read this client's messages. On a cluster every node delivers a copy of
   * each, and only the copy from the node that serves the lock's slot (by the topology the command
   * connection last saw) is read; {@code slotKey} gives a key of a lock name.
   */
  void addListener(Inbox inbox, Function<String, byte[]> slotKey) {
    if (pubSub instanceof StatefulRedisClusterPubSubConnection<byte[], byte[]> p
        && connection instanceof StatefulRedisClusterConnection<byte[], byte[]> c) {
      p.addListener(new RedisClusterPubSubAdapter<byte[], byte[]>() {
        @Override
        public void smessage(RedisClusterNode node, byte[] channel, byte[] message) {
          inbox.message(message, name -> true);
        }

        @Override
        public void sunsubscribed(RedisClusterNode node, byte[] channel, long count) {
          listening.remove(SlotHash.getSlot(channel)); // the slot moved: subscribe again where it went
        }

        @Override
        public void message(RedisClusterNode node, byte[] channel, byte[] message) {
          inbox.message(message, name -> {
            RedisClusterNode owner = master(c, SlotHash.getSlot(slotKey.apply(name)));
            return owner != null && owner.getNodeId().equals(node.getNodeId());
          });
        }
      });
    } else {
      pubSub.addListener(inbox);
    }
  }

  /** Subscribes to {@code channel}: on a cluster, on every node it knows. */
  CompletableFuture<?> subscribe(byte[] channel) {
    if (pubSub instanceof StatefulRedisClusterPubSubConnection<byte[], byte[]> p) {
      return CompletableFuture.allOf(p.async().all().commands().subscribe(channel).futures());
    }
    return pubSub.async().subscribe(channel).toCompletableFuture();
  }

  /**
   * With sharded pub/sub, subscribes to {@code channel} on the master of {@code key}'s slot,
   * unless this client listens there already. The channel is in that slot.
   */
  CompletableFuture<?> listen(byte[] key, byte[] channel) {
    int slot = SlotHash.getSlot(key);
    if (listening.contains(slot)) {
      return CompletableFuture.completedFuture(null);
    }
    RedisClusterNode node = master((StatefulRedisClusterConnection<byte[], byte[]>) connection, slot);
    if (node == null) {
      return CompletableFuture.failedFuture(new IllegalStateException("no cluster node serves slot " + slot));
    }
    StatefulRedisClusterPubSubConnection<byte[], byte[]> p = (StatefulRedisClusterPubSubConnection<byte[], byte[]>) pubSub;
    return p.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())
        .thenCompose(n -> n.async().ssubscribe(channel).toCompletableFuture())
        .thenRun(() -> listening.add(slot));
  }

  /**
   * Sends {@code WAIT replicas timeout} on the connection that ran the write to {@code key}: WAIT
   * counts the replication of that connection's own writes.
   */
  CompletableFuture<Long> waitForReplicas(byte[] key, int replicas, Duration timeout) {
    if (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> c) {
      RedisClusterNode node = master(c, SlotHash.getSlot(key));
      if (node == null) {
        return CompletableFuture.failedFuture(new IllegalStateException(
            "no cluster node serves slot " + SlotHash.getSlot(key)));
      }
      // By host and port, as Lettuce routes a keyed write: a connection by node id is another one.
      return c.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort()).thenCompose(n ->
          n.async().waitForReplication(replicas, timeout.toMillis()).toCompletableFuture());
    }
    return commands.waitForReplication(replicas, timeout.toMillis()).toCompletableFuture();
  }

  /** The master of {@code slot} by the topology the command connection last saw, or null. */
  private static @Nullable RedisClusterNode master(StatefulRedisClusterConnection<byte[], byte[]> c,
      int slot) {
    return c.getPartitions().getMasterBySlot(slot);
  }

  @Override
  public void close() {
    closeAll(watch, topologyWatch, pubSub, connection, client, resources);
  }

  /** Closes each part that is there: all of them, or what a failed {@link #open} made so far. */
  private static void closeAll(ReconnectWatch watch, @Nullable Disposable topologyWatch,
      @Nullable AutoCloseable pubSub, @Nullable AutoCloseable connection,
      @Nullable AbstractRedisClient client, ClientResources resources) {
    watch.close();
    if (topologyWatch != null) {
      topologyWatch.dispose();
    }
    for (@Nullable AutoCloseable c : new @Nullable AutoCloseable[] {pubSub, connection}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        log.debug("dlock: closing a redis connection failed", e);
      }
    }
    shutdown(client, resources);
  }

  /** Shuts down a client and its threads (each if any), waiting at most about two seconds for each. */
  static void shutdown(@Nullable AbstractRedisClient client, @Nullable ClientResources resources) {
    try {
      if (client != null) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    } catch (RuntimeException e) {
      log.debug("dlock: shutting down the redis client failed", e);
    }
    if (resources != null) {
      resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }
}
