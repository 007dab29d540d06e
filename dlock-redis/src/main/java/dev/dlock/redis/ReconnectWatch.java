package dev.dlock.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.resource.ClientResources;
import java.net.SocketAddress;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * Tells the engine when the server behind a backend's connections may have changed, so that it
 * re-checks every held lease at once: a restarted or promoted server may not know them. Three
 * signs: a connection that Lettuce re-establishes after it dropped (the first connect of a
 * connection is none, so no call comes without a reconnect); a cluster topology change; and a
 * Sentinel's {@code +switch-master} for the watched master. Sentinel's own event is heard on a
 * pub/sub connection to every Sentinel, made by a client of its own so that these connections'
 * reconnects do not count; a failover is reported once per new master, however many Sentinels
 * announce it.
 */
final class ReconnectWatch implements RedisConnectionStateListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReconnectWatch.class);
  private static final String SWITCH_MASTER = "+switch-master";

  private final String server;
  /** The connections that dropped and have not come back; weak, as a dropped one may be closed for good. */
  private final Set<RedisChannelHandler<?, ?>> dropped = Collections.synchronizedSet(
      Collections.newSetFromMap(new WeakHashMap<>()));
  private final AtomicReference<@Nullable String> lastMaster = new AtomicReference<>();
  private volatile Consumer<String> target = why -> { };
  private @Nullable Disposable topology;
  private @Nullable RedisClient sentinelClient;

  /** @param server the backend's description, for the reasons given */
  ReconnectWatch(String server) {
    this.server = server;
  }

  /** Watches every connection of {@code client}, and on a cluster its topology. */
  void watch(AbstractRedisClient client, ClientResources resources, boolean cluster) {
    client.addListener(this);
    if (cluster) {
      topology = resources.eventBus().get().filter(ClusterTopologyChangedEvent.class::isInstance)
          .subscribe(e -> tell("the cluster topology changed"));
    }
  }

  /**
   * Listens for {@code +switch-master} of {@code sentinelUri}'s master on each of its Sentinels,
   * without waiting: a Sentinel that is down now is left out, as the reconnect to the new master
   * is reported anyway.
   */
  void watchSentinels(RedisURI sentinelUri, ClientResources resources, ClientOptions options) {
    String master = sentinelUri.getSentinelMasterId();
    RedisClient client = RedisClient.create(resources);
    sentinelClient = client;
    client.setOptions(options);
    for (RedisURI s : sentinelUri.getSentinels()) {
      client.connectPubSubAsync(StringCodec.UTF8, s).thenCompose(c -> {
        c.addListener(new RedisPubSubAdapter<>() {
          @Override
          public void message(String channel, String message) {
            switchedMaster(master, message);
          }
        });
        return c.async().subscribe(SWITCH_MASTER);
      }).whenComplete((ok, e) -> {
        if (e != null) {
          log.debug("dlock: cannot watch Sentinel {}:{} for failovers of {}", s.getHost(), s.getPort(), server, e);
        }
      });
    }
  }

  /** From now on, reports to {@code reconnected}. */
  void start(Consumer<String> reconnected) {
    target = reconnected;
  }

  /** {@code +switch-master} says "name oldHost oldPort newHost newPort". */
  private void switchedMaster(String master, String message) {
    String[] f = message.split(" ");
    if (f.length == 5 && f[0].equals(master)) {
      String to = f[3] + ":" + f[4];
      if (!to.equals(lastMaster.getAndSet(to))) {
        tell("Sentinel moved master " + master + " from " + f[1] + ":" + f[2] + " to " + to);
      }
    }
  }

  @Override
  public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
    dropped.add(connection);
  }

  @Override
  public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
    if (dropped.remove(connection)) {
      tell("reconnected to " + address);
    }
  }

  private void tell(String why) {
    String reason = "redis " + server + ": " + why;
    log.debug("dlock: {}", reason);
    target.accept(reason);
  }

  @Override
  public void close() {
    target = why -> { };
    if (topology != null) {
      topology.dispose();
    }
    Connections.shutdown(sentinelClient, null); // closes its connections too
  }
}
