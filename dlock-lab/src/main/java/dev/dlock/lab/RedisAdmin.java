package dev.dlock.lab;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;
import java.time.Duration;
import java.util.function.Function;

/**
 * The injector's admin commands to the lab's redis-servers and Sentinels on 127.0.0.1, through
 * Lettuce. Why a connection per call and no reconnects: the nodes it asks are paused, dead or
 * failing over, so a call to such a node must cost that call its 2 s timeout and leave nothing
 * behind to retry later.
 */
final class RedisAdmin implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private final RedisClient client = RedisClient.create();

  RedisAdmin() {
    client.setOptions(ClientOptions.builder().autoReconnect(false)
        .socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).build())
        .timeoutOptions(TimeoutOptions.enabled(TIMEOUT)).build());
  }

  /** Runs {@code call} (the commands {@code command} names) on a connection of its own to the server on {@code port}. */
  <T> T server(int port, String command, Function<RedisCommands<String, String>, T> call) {
    try (StatefulRedisConnection<String, String> c = client.connect(uri(port))) {
      return call.apply(c.sync());
    } catch (RedisException e) {
      throw new IllegalStateException(
          "redis-server on 127.0.0.1:" + port + " failed " + command + ": " + e.getMessage(), e);
    }
  }

  /** Runs {@code call} (the command {@code command} names) on a connection of its own to the Sentinel on {@code port}. */
  <T> T sentinel(int port, String command, Function<RedisSentinelCommands<String, String>, T> call) {
    try (StatefulRedisSentinelConnection<String, String> c = client.connectSentinel(uri(port))) {
      return call.apply(c.sync());
    } catch (RedisException e) {
      throw new IllegalStateException(
          "Sentinel on 127.0.0.1:" + port + " failed " + command + ": " + e.getMessage(), e);
    }
  }

  private static RedisURI uri(int port) {
    return RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(TIMEOUT).build();
  }

  @Override
  public void close() {
    client.shutdown(Duration.ZERO, TIMEOUT);
  }
}
