package dev.dlock.redis;

import dev.dlock.BackendUnavailableException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The Redlock nodes' connections: one multiplexed connection per node, all on one Lettuce client
 * and one set of threads. Why these options: a node that goes down must fail a round at once
 * (rejected commands, not queued ones, which would only pile up behind the node timeout), and must
 * come back by itself within a second of its server (auto-reconnect with a short back-off; the
 * default backs off up to 30 s; see {@link Connections#options}). Opening needs a majority
 * reachable, not every node.
 */
final class RedlockConnections {
  private final ClientResources resources;
  private final RedisClient client;
  private final List<RedlockNode> nodes = new ArrayList<>();

  private RedlockConnections(RedlockUrl url, LongSupplier clock, Consumer<String> reconnected) {
    resources = Connections.resources();
    client = RedisClient.create(resources);
    client.setOptions(Connections.options(ClientOptions.builder(), url.connectTimeout(),
        ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
    for (int i = 0; i < url.nodes().size(); i++) {
      nodes.add(new RedlockNode(i, url.nodes().get(i), client, clock, url.restartDelay(),
          reconnected, url.description()));
    }
  }

  /**
   * Connects to every node at once; throws BackendUnavailableException if under a majority can.
   * {@code reconnected} hears of every node that comes back after it dropped.
   */
  static RedlockConnections open(RedlockUrl url, LongSupplier clock, Consumer<String> reconnected) {
    RedlockConnections c = new RedlockConnections(url, clock, reconnected);
    RedlockRound<Void> opened = RedlockRound.send(c.nodes, clock.getAsLong(), RedlockNode::connect)
        .await(url.connectTimeout().plusMillis(500));
    int reachable = 0;
    for (RedlockNode n : c.nodes) {
      reachable += n.connected() ? 1 : 0;
    }
    if (reachable < url.majority()) {
      c.close();
      Throwable cause = opened.failure();
      throw new BackendUnavailableException(String.format(
          "redlock: only %d of %d nodes reachable, %d needed: %s%s", reachable, c.nodes.size(),
          url.majority(), url.description(), cause == null ? "" : ": " + Calls.reason(cause)),
          cause);
    }
    return c;
  }

  /** The connect and command timeout, the same for every node. */
  static Duration timeout(RedlockUrl url) {
    return url.nodes().get(0).getTimeout();
  }

  /** Opens a pub/sub connection to {@code node}, on the nodes' client and threads. */
  CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> connectPubSub(RedlockNode node) {
    return client.connectPubSubAsync(ByteArrayCodec.INSTANCE, node.uri()).toCompletableFuture();
  }

  List<RedlockNode> nodes() {
    return nodes;
  }

  void close() {
    nodes.forEach(RedlockNode::close);
    Connections.shutdown(client, resources);
  }
}
