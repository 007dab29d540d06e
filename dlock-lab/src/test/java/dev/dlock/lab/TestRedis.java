package dev.dlock.lab;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import redis.embedded.RedisServer;

/** A redis-server without persistence on a free loopback port, with an admin connection. */
final class TestRedis implements AutoCloseable {
  private final RedisServer server;
  private final int port;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;

  TestRedis() throws IOException {
    port = freePort();
    server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
        .setting("save \"\"").setting("appendonly no").build();
    server.start();
    client = RedisClient.create(url());
    connection = client.connect();
  }

  String url() {
    return "redis://127.0.0.1:" + port;
  }

  RedisCommands<String, String> admin() {
    return connection.sync();
  }

  @Override
  public void close() throws IOException {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    server.stop();
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
