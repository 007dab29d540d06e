package dev.dlock.spring;

import dev.dlock.testkit.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import redis.embedded.RedisServer;

/** One real Redis server for the starter's tests, started on first use and stopped with the JVM. */
final class TestRedis {
  private static String url;

  private TestRedis() {}

  static synchronized String url() {
    if (url == null) {
      try {
        int port = FreePorts.next();
        RedisServer server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
            .setting("save \"\"").setting("appendonly no").build();
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          try {
            server.stop();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }));
        url = "redis://127.0.0.1:" + port;
      } catch (IOException e) {
        throw new UncheckedIOException("the test's Redis server did not start", e);
      }
    }
    return url;
  }
}
