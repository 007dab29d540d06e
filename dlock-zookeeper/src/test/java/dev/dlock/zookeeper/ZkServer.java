package dev.dlock.zookeeper;

import java.io.IOException;
import java.time.Duration;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The ZooKeeper server of one test class ({@link ZkServers#server}), as its JUnit extension:
 * {@code @RegisterExtension static final ZkServer server = new ZkServer();} starts it before the
 * class's first test (and its {@code @BeforeAll} methods) and closes it after the last, so no test
 * class writes that pair of methods itself. A server that cannot start fails the class.
 */
final class ZkServer implements BeforeAllCallback, AfterAllCallback {
  private final Duration containerCheck;
  private TestingServer server;
  /** The class whose run started the server: its @Nested classes call the extension again. */
  private Class<?> owner;

  /** A server that removes empty containers at ZooKeeper's default pace, once a minute. */
  ZkServer() {
    this(null);
  }

  /** A server that looks for empty containers to remove every {@code containerCheck}. */
  ZkServer(Duration containerCheck) {
    this.containerCheck = containerCheck;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (server != null) {
      return;
    }
    try {
      server = ZkServers.server(containerCheck);
    } catch (Exception e) {
      throw new IllegalStateException("the ZooKeeper test server of " + context.getDisplayName() + " did not start", e);
    }
    owner = context.getRequiredTestClass();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    if (context.getRequiredTestClass() == owner) {
      server.close();
      server = null;
    }
  }

  /** host:port of the running server. */
  String connectString() {
    if (server == null) {
      throw new IllegalStateException("the ZooKeeper test server is not running: register it with"
          + " @RegisterExtension on a static field");
    }
    return server.getConnectString();
  }

  /** A zookeeper:// URL of this server with {@code params} (may be empty). */
  String url(String params) {
    return ZkServers.url(connectString(), params);
  }

  /** A plain client without credentials, connected ({@link ZkServers#rawClient}); the caller closes it. */
  ZooKeeper rawClient() throws IOException, InterruptedException {
    return ZkServers.rawClient(connectString());
  }
}
