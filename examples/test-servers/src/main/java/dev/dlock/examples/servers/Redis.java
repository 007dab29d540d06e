package dev.dlock.examples.servers;

import dev.dlock.testkit.FreePorts;
import java.io.IOException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import redis.embedded.RedisServer;

/**
 * A real Redis server for one test class, on a free loopback port, with nothing saved to disk:
 * {@code @RegisterExtension static final Redis REDIS = new Redis();}. It starts before the class's
 * {@code @BeforeAll} methods and stops after its {@code @AfterAll} ones.
 */
public final class Redis implements BeforeAllCallback, AfterAllCallback {
  private RedisServer server;
  private int port;

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    port = FreePorts.next();
    server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
        .setting("save \"\"").setting("appendonly no").build();
    server.start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    server.stop();
  }

  /** The dlock URL of the server. */
  public String url() {
    return "redis://127.0.0.1:" + port;
  }
}
