package dev.dlock.redis;

import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This client's channel on every Redlock node: one pub/sub connection per node, subscribed to the
 * client's channel, whose messages go to {@link RedlockWakes} with the node that sent them. Why
 * one per node: a node publishes only to its own subscribers, and its release skips the waiters
 * of a client that does not listen there. A node whose connection could not be made when the
 * client started is connected later, by the waits that find it missing, at most once per
 * {@link RedlockNode#RECONNECT_PAUSE}; once connected, Lettuce reconnects and subscribes again by
 * itself. Until then, this client's waiters count on the other nodes, and on their retry hint.
 */
final class RedlockListeners {
  private static final Logger log = LoggerFactory.getLogger(RedlockListeners.class);

  /** Opens a pub/sub connection to a node. */
  interface Connector extends
      Function<RedlockNode, CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>>> {}

  private final List<RedlockNode> nodes;
  private final Connector connector;
  private final RedlockWakes wakes;
  private final List<Listener> listeners = new ArrayList<>();

  RedlockListeners(List<RedlockNode> nodes, Connector connector, RedlockWakes wakes) {
    this.nodes = nodes;
    this.connector = connector;
    this.wakes = wakes;
  }

  /**
   * Subscribes to {@code channel}, the channel of client {@code clientId}, on every node, waiting
   * up to {@code timeout} for those the client is connected to now.
   */
  void start(String clientId, byte[] channel, Duration timeout) {
    List<RedlockNode> connected = new ArrayList<>();
    for (RedlockNode n : nodes) {
      Listener l = new Listener(n, clientId, channel);
      listeners.add(l);
      connected.add(n.connected() ? n : null);
    }
    RedlockRound.send(connected, nodes.get(0).now(), n -> listeners.get(n.index).connect())
        .await(timeout);
  }

  /** Connects to the nodes this client does not listen on yet, where an attempt is due. */
  void ensure() {
    for (Listener l : listeners) {
      l.ensure();
    }
  }

  void close() {
    for (Listener l : listeners) {
      l.close();
    }
  }

  /** The subscription on one node. */
  private final class Listener {
    private final RedlockNode node;
    private final String clientId;
    private final byte[] channel;
    private @Nullable StatefulRedisPubSubConnection<byte[], byte[]> connection;
    private boolean connecting;
    private boolean closed;
    private boolean attempted;
    private long lastAttempt;

    Listener(RedlockNode node, String clientId, byte[] channel) {
      this.node = node;
      this.clientId = clientId;
      this.channel = channel;
    }

    CompletableFuture<Void> connect() {
      synchronized (this) {
        if (connecting || closed || connection != null) {
          return CompletableFuture.completedFuture(null);
        }
        connecting = true;
        attempted = true;
        lastAttempt = node.now();
      }
      return connector.apply(node).thenCompose(c -> {
        c.addListener(new Inbox(clientId, (kind, name, owner, token) -> { },
            (name, owner) -> wakes.told(node.index, name, owner)));
        return c.async().subscribe(channel).toCompletableFuture().handle((ok, e) -> {
          settle(c, e);
          return (Void) null;
        });
      }).exceptionally(e -> {
        settle(null, e);
        return null;
      });
    }

    /** Keeps {@code c} if it subscribed and this client is still open; else lets the next wait try again. */
    private void settle(@Nullable StatefulRedisPubSubConnection<byte[], byte[]> c, @Nullable Throwable e) {
      boolean keep;
      synchronized (this) {
        connecting = false;
        keep = c != null && e == null && !closed;
        if (keep) {
          connection = c;
        }
      }
      if (c != null && !keep) {
        c.closeAsync();
      }
      if (e != null) {
        log.debug("dlock: could not listen on redlock node {}", node.address(), e);
      }
    }

    void ensure() {
      synchronized (this) {
        if (connection != null || connecting || closed
            || attempted && node.now() - lastAttempt < RedlockNode.RECONNECT_PAUSE.toNanos()) {
          return;
        }
      }
      connect();
    }

    void close() {
      StatefulRedisPubSubConnection<byte[], byte[]> c;
      synchronized (this) {
        closed = true;
        c = connection;
        connection = null;
      }
      if (c != null) {
        c.closeAsync();
      }
    }
  }
}
