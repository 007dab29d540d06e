package dev.dlock.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import redis.embedded.RedisServer;

/**
 * N independent real redis-servers on free loopback ports, without persistence, for Redlock
 * tests: node i can be stopped, started again (empty, as after a crash without persistence) and
 * queried. Register {@link #perClass(int)} as a static extension; nothing is mocked or skipped.
 */
final class RedisNodes implements BeforeAllCallback, AfterAllCallback {
  private final int[] ports;
  private final RedisServer[] servers;
  private String startedBy;

  private RedisNodes(int n) {
    ports = new int[n];
    servers = new RedisServer[n];
    for (int i = 0; i < n; i++) {
      ports[i] = RedisTestServer.freePort();
    }
  }

  static RedisNodes perClass(int n) {
    return new RedisNodes(n);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (startedBy == null) {
      startedBy = context.getUniqueId();
      for (int i = 0; i < ports.length; i++) {
        start(i);
      }
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (context.getUniqueId().equals(startedBy)) {
      startedBy = null;
      for (int i = 0; i < ports.length; i++) {
        stop(i);
      }
    }
  }

  /** {@code redlock://127.0.0.1:p0,...} with {@code query} (may be empty) appended after '?'. */
  String url(String query) {
    StringJoiner hosts = new StringJoiner(",", "redlock://", query.isEmpty() ? "" : "?" + query);
    for (int port : ports) {
      hosts.add("127.0.0.1:" + port);
    }
    return hosts.toString();
  }

  int port(int i) {
    return ports[i];
  }

  int size() {
    return ports.length;
  }

  /** Starts node i, empty, on its port; a no-op if it runs. */
  synchronized void start(int i) {
    if (servers[i] != null) {
      return;
    }
    try {
      RedisServer s = RedisTestServer.launch(RedisServer.newRedisServer().port(ports[i]).bind("127.0.0.1")
          .setting("save \"\"").setting("appendonly no").build(), ports[i]);
      if (!s.isActive()) {
        throw new IllegalStateException("redis-server is not active on port " + ports[i]);
      }
      servers[i] = s;
    } catch (IOException e) {
      throw new UncheckedIOException("redis-server did not start on port " + ports[i], e);
    }
  }

  /** Stops node i: every key it held is gone. A no-op if it is stopped. */
  synchronized void stop(int i) {
    if (servers[i] == null) {
      return;
    }
    try {
      servers[i].stop();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      servers[i] = null;
    }
  }

  /** Starts every stopped node. */
  void startAll() {
    for (int i = 0; i < ports.length; i++) {
      start(i);
    }
  }

  /** Runs {@code command} on node i over a short-lived connection. */
  <T> T on(int i, java.util.function.Function<RedisCommands<String, String>, T> command) {
    RedisURI uri = RedisURI.create("127.0.0.1", ports[i]);
    uri.setTimeout(Duration.ofSeconds(5));
    RedisClient client = RedisClient.create(uri);
    try (var c = client.connect()) {
      return command.apply(c.sync());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** Deletes every key of lock {@code name} under {@code prefix} on every node. */
  void forget(String prefix, String name) {
    for (int i = 0; i < ports.length; i++) {
      on(i, c -> c.del(RedisTestServer.keysOf(prefix, name)));
    }
  }

  /** Node i's uptime_in_seconds. */
  long uptime(int i) {
    String info = on(i, c -> c.info("server"));
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("uptime_in_seconds:")) {
        return Long.parseLong(line.substring("uptime_in_seconds:".length()).trim());
      }
    }
    throw new IllegalStateException("no uptime_in_seconds in INFO server");
  }

  List<Integer> indexes() {
    List<Integer> all = new ArrayList<>();
    for (int i = 0; i < ports.length; i++) {
      all.add(i);
    }
    return all;
  }
}
