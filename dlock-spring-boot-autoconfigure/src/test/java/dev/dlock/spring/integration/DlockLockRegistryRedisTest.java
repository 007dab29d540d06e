package dev.dlock.spring.integration;

import dev.dlock.testkit.FreePorts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import redis.embedded.RedisServer;

/**
 * The registry on dlock's Redis locks, on a redis-server of embedded-redis: bound to loopback and
 * without persistence, so it reaches nothing else and leaves no file behind.
 */
class DlockLockRegistryRedisTest extends LockRegistryContract {
  private static RedisServer server;
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    port = FreePorts.next();
    server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
        .setting("save \"\"").setting("appendonly no").build();
    server.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.stop();
    }
  }

  @Override
  String url() {
    return "redis://127.0.0.1:" + port;
  }
}
