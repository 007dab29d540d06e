package dev.dlock.jdbc;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.LossDeadlineSuite;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On PostgreSQL: a holder cut off by a frozen path, or by a paused server (the postmaster and
 * every backend process stopped), is told before the database lets another client take the lock.
 */
class PostgresLossDeadlineTest extends LossDeadlineSuite {
  @RegisterExtension
  static final PostgresServer server = new PostgresServer();
  private static String directUrl;
  private Paused paused;

  @BeforeAll
  static void start() throws Exception {
    directUrl = server.url();
  }

  @Override
  protected InetSocketAddress server() {
    return new InetSocketAddress("127.0.0.1", port(directUrl));
  }

  private static int port(String url) {
    String rest = url.substring("jdbc:postgresql://127.0.0.1:".length());
    return Integer.parseInt(rest.substring(0, rest.indexOf('/')));
  }

  @Override
  protected LockClientBuilder throughProxy(int port, Duration lease) {
    return LockClient.builder().url(directUrl.replace(":" + port(directUrl) + "/", ":" + port + "/"))
        .leaseTime(lease);
  }

  @Override
  protected LockClientBuilder direct() {
    return LockClient.builder().url(directUrl);
  }

  /** Stops the postmaster and every process it started, as one long pause of the whole server. */
  @Override
  protected void pauseServer() throws Exception {
    paused = Paused.pause(server.postmasterPid());
  }

  @Override
  protected void resumeServer() throws Exception {
    paused.close();
  }
}
