package dev.dlock.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Redlock master as the client sees it. Why it keeps state: a node unreachable at open is
 * connected later, lazily, by the rounds that find it missing, but at most one attempt is in
 * flight and not more often than {@link #RECONNECT_PAUSE}, so a dead node costs the callers
 * nothing. Once connected, Lettuce reconnects by itself and rejects commands while down, so a
 * down node answers at once with a failure instead of queueing.
 *
 * <p>With the restart guard on ({@code restartDelay}), a node votes only once it has been up for
 * {@code restartDelay}: its start is read from {@code INFO server} whenever it (re)connects and
 * placed on the client's monotonic clock. Every disconnect or connect bumps {@link #epoch()}; a
 * round counts a node's answer only if its epoch did not move during the round, so an answer from
 * a node that restarted meanwhile (and forgot its keys) is never counted on the old verdict.
 */
final class RedlockNode {
  private static final Logger log = LoggerFactory.getLogger(RedlockNode.class);
  static final Duration RECONNECT_PAUSE = Duration.ofMillis(500);

  final int index;
  private final RedisURI uri;
  private final RedisClient client;
  private final LongSupplier clock;
  private final long restartDelayNanos;
  private final Consumer<String> reconnected;
  private final String server;
  /** Set after {@link #scripts} and never cleared: a node with a connection has its scripts. */
  private volatile @Nullable StatefulRedisConnection<byte[], byte[]> connection;
  private volatile @Nullable Scripts scripts;
  private volatile long epoch;
  private volatile long verifiedEpoch = -1;
  private volatile long votesFrom;
  private boolean connecting;
  private @Nullable CompletableFuture<Void> verifying;
  private long lastAttempt;
  private boolean attempted;
  private @Nullable String runId;
  private volatile boolean closed;

  /**
   * @param reconnected told when this node's connection comes back after it dropped
   * @param server      the backend's description, for that message
   */
  RedlockNode(int index, RedisURI uri, RedisClient client, LongSupplier clock, Duration restartDelay,
      Consumer<String> reconnected, String server) {
    this.index = index;
    this.uri = uri;
    this.client = client;
    this.clock = clock;
    this.restartDelayNanos = restartDelay.toNanos();
    this.reconnected = reconnected;
    this.server = server;
  }

  /** The clock the node's times are on, in nanoseconds. */
  long now() {
    return clock.getAsLong();
  }

  RedisURI uri() {
    return uri;
  }

  String address() {
    return uri.getHost() + ":" + uri.getPort();
  }

  /** Connects (and, with the guard, reads the node's start); the future fails if it cannot. */
  CompletableFuture<Void> connect() {
    synchronized (this) {
      if (connecting || closed) {
        return CompletableFuture.failedFuture(new RedisConnectionException("connecting"));
      }
      connecting = true;
      attempted = true;
      lastAttempt = clock.getAsLong();
    }
    CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connected =
        client.connectAsync(ByteArrayCodec.INSTANCE, uri).toCompletableFuture();
    return connected.handle((c, error) -> {
      synchronized (this) {
        connecting = false;
        if (error != null) {
          return CompletableFuture.<Void>failedFuture(error);
        }
        if (closed) {
          c.closeAsync();
          return CompletableFuture.<Void>failedFuture(new RedisConnectionException("closed"));
        }
        c.addListener(new Watcher());
        scripts = new Scripts(c.async(), uri.getTimeout(), clock);
        connection = c;
        epoch++;
      }
      return restartDelayNanos > 0 ? verify() : CompletableFuture.<Void>completedFuture(null);
    }).thenCompose(Function.identity());
  }

  /** True if a connection is up now; else starts a connect attempt if one is due. */
  boolean ready() {
    StatefulRedisConnection<byte[], byte[]> c = connection;
    if (c != null) {
      return c.isOpen();
    }
    synchronized (this) {
      if (connecting || closed || attempted && clock.getAsLong() - lastAttempt < RECONNECT_PAUSE.toNanos()) {
        return false;
      }
    }
    connect().exceptionally(e -> {
      log.debug("dlock: redlock node {} is still unreachable", address(), e);
      return null;
    });
    return false;
  }

  /** Runs a script on this node; fails at once if the node is not connected. */
  <T> CompletableFuture<T> run(Scripts.Script s, byte[][] keys, byte[]... args) {
    Scripts sc = readyScripts();
    return sc != null ? sc.runAsync(s, keys, args) : down();
  }

  /** Runs a script on this node and reads its reply; fails at once if the node is not connected. */
  <R> CompletableFuture<R> run(ScriptCall<R> c) {
    return this.<Object>run(c.script(), c.keys(), c.args()).thenApply(c.reply());
  }

  <T> CompletableFuture<T> run(byte[] source, String sha, ScriptOutputType output, byte[][] keys,
      byte[]... args) {
    Scripts sc = readyScripts();
    return sc != null ? sc.runAsync(source, sha, output, keys, args) : down();
  }

  /** Any other command, such as SCAN. */
  <T> CompletableFuture<T> call(Function<RedisAsyncCommands<byte[], byte[]>, CompletionStage<T>> command) {
    StatefulRedisConnection<byte[], byte[]> c = ready() ? connection : null;
    return c != null ? command.apply(c.async()).toCompletableFuture() : down();
  }

  /** The scripts if a connection is up now, as {@link #ready} tells; else null. */
  private @Nullable Scripts readyScripts() {
    return ready() ? scripts : null;
  }

  private <T> CompletableFuture<T> down() {
    return CompletableFuture.failedFuture(
        new RedisConnectionException("redlock node " + address() + " is not connected"));
  }

  /** True if a connection is up now; starts nothing. */
  boolean connected() {
    StatefulRedisConnection<byte[], byte[]> c = connection;
    return c != null && c.isOpen();
  }

  /** The backend's clock changed (at start): the next connect attempt need not wait for a pause. */
  synchronized void clockChanged() {
    attempted = false;
  }

  /** Reads the node's start again, dropping the verdict on it until the answer is in. */
  CompletableFuture<Void> reverify() {
    synchronized (this) {
      verifiedEpoch = -1;
    }
    return verify();
  }

  long epoch() {
    return epoch;
  }

  /** True if this node's answers count now; with the guard, starts reading its start if due. */
  boolean votes(long now) {
    if (restartDelayNanos == 0) {
      return true;
    }
    if (verifiedEpoch != epoch) {
      verify();
      return false;
    }
    return now - votesFrom >= 0;
  }

  /** Reads the node's start; while a reading is in flight, that one. */
  private CompletableFuture<Void> verify() {
    long sentEpoch;
    CompletableFuture<String> info;
    synchronized (this) {
      if (verifying != null) {
        return verifying;
      }
      StatefulRedisConnection<byte[], byte[]> c = connection;
      if (c == null || !c.isOpen()) {
        return CompletableFuture.completedFuture(null);
      }
      sentEpoch = epoch;
      info = c.async().info("server").toCompletableFuture();
      CompletableFuture<Void> reading = info.handle((text, error) -> {
        settle(sentEpoch, text, error);
        return null;
      });
      // settle() clears it, under this lock; if it already ran, there is nothing in flight.
      verifying = reading.isDone() ? null : reading;
      return reading;
    }
  }

  /** Records the node's start from {@code info}; {@code info} is null when {@code error} is not. */
  private synchronized void settle(long sentEpoch, @Nullable String info, @Nullable Throwable error) {
    long now = clock.getAsLong();
    verifying = null;
    if (error != null || info == null || sentEpoch != epoch) {
      return; // the next round asks again
    }
    long uptime = Long.parseLong(field(info, "uptime_in_seconds"));
    String id = field(info, "run_id");
    if (runId != null && !runId.equals(id)) {
      log.info("dlock: redlock node {} restarted {} s ago; it votes again after restartDelay",
          address(), uptime);
    }
    runId = id;
    // The node started at the latest when the reply came, minus the whole seconds it reports.
    votesFrom = now - Duration.ofSeconds(uptime).toNanos() + restartDelayNanos;
    verifiedEpoch = sentEpoch;
  }

  private static String field(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    throw new IllegalStateException("INFO server has no " + name);
  }

  void close() {
    StatefulRedisConnection<byte[], byte[]> c;
    synchronized (this) {
      closed = true;
      c = connection;
    }
    if (c != null) {
      try {
        c.close();
      } catch (RuntimeException e) {
        log.debug("dlock: closing the connection to redlock node {} failed", address(), e);
      }
    }
  }

  /**
   * Bumps the epoch on every disconnect and reconnect, re-reads the start after a reconnect, and
   * reports it: the node may have restarted and forgotten the leases it held.
   */
  private final class Watcher implements RedisConnectionStateListener {
    private boolean dropped;

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
      synchronized (RedlockNode.this) {
        epoch++;
        dropped = true;
      }
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
      boolean back;
      synchronized (RedlockNode.this) {
        epoch++;
        back = dropped;
        dropped = false;
      }
      if (restartDelayNanos > 0) {
        CompletableFuture.runAsync(RedlockNode.this::verify);
      }
      if (back) {
        reconnected.accept("redlock " + server + ": node " + address() + " reconnected");
      }
    }
  }
}
