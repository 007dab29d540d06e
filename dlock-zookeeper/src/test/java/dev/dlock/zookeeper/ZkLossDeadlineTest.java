package dev.dlock.zookeeper;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.LossDeadlineSuite;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * On a ZooKeeper server in a process of its own: a holder whose session runs out behind a frozen
 * path, or on a paused server, is told before its node goes and another client is granted. The
 * lease under test is the session timeout.
 */
class ZkLossDeadlineTest extends LossDeadlineSuite {
  private static ZkServerProcess server;

  @BeforeAll
  static void start() throws Exception {
    server = ZkServerProcess.start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Override
  protected InetSocketAddress server() {
    return new InetSocketAddress("127.0.0.1", server.port);
  }

  @Override
  protected LockClientBuilder throughProxy(int port, Duration lease) {
    return LockClient.builder().url("zookeeper://127.0.0.1:" + port + "?sessionTimeout=" + lease.toMillis() + "ms");
  }

  @Override
  protected LockClientBuilder direct() {
    return LockClient.builder().url("zookeeper://" + server.connectString());
  }

  @Override
  protected void pauseServer() throws Exception {
    server.pause();
  }

  @Override
  protected void resumeServer() throws Exception {
    server.resume();
  }
}
