package dev.dlock.jdbc;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.LossDeadlineSuite;
import dev.dlock.testkit.Signals;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * On PostgreSQL: a holder cut off by a frozen path, or by a paused server (the postmaster and
 * every backend process stopped), is told before the database lets another client take the lock.
 */
class PostgresLossDeadlineTest extends LossDeadlineSuite {
  private static PostgresServer server;
  private static String directUrl;
  private final List<Long> paused = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    server = PostgresServer.start();
    directUrl = server.url();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
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
  protected void pauseServer() throws SQLException {
    long backend;
    try (Connection c = server.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      backend = rs.getLong(1);
    }
    ProcessHandle postmaster = ProcessHandle.of(backend).flatMap(ProcessHandle::parent)
        .orElseThrow(() -> new AssertionError("no postmaster above backend " + backend));
    Stream.concat(Stream.of(postmaster), postmaster.descendants()).forEach(p -> {
      Signals.send("STOP", p.pid());
      paused.add(p.pid());
    });
  }

  @Override
  protected void resumeServer() {
    for (long pid : paused) {
      Signals.send("CONT", pid);
    }
    paused.clear();
  }
}
