package dev.dlock.examples.flashsale;

import java.io.IOException;
import java.net.ServerSocket;
import redis.embedded.RedisServer;

/** A real Redis server for one test class, on a free loopback port, with nothing saved to disk. */
final class EmbeddedRedis implements AutoCloseable {
  private final RedisServer server;
  private final int port;

  private EmbeddedRedis(RedisServer server, int port) {
    this.server = server;
    this.port = port;
  }

  static EmbeddedRedis start() throws IOException {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    RedisServer server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
        .setting("save \"\"").setting("appendonly no").build();
    server.start();
    return new EmbeddedRedis(server, port);
  }

  String url() {
    return "redis://127.0.0.1:" + port;
  }

  @Override
  public void close() throws IOException {
    server.stop();
  }
}
