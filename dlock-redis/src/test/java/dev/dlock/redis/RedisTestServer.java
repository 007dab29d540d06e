package dev.dlock.redis;

import dev.dlock.testkit.FreePorts;
import dev.dlock.testkit.Signals;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import redis.embedded.RedisServer;
import redis.embedded.core.RedisServerBuilder;

/**
 * A real redis-server on a free loopback port, without persistence, for one test class. A server
 * that cannot start fails the test: nothing here is skipped or mocked. An admin connection reads
 * INFO commandstats. Register {@link #perClass()} as a static extension to start it before the
 * class's tests and stop it after them.
 */
@SuppressWarnings("deprecation") // Lettuce's setters still work for a test server
final class RedisTestServer implements AutoCloseable, BeforeAllCallback, AfterAllCallback {
  private int port;
  private final List<String> settings;
  private RedisServer server;
  private RedisClient admin;
  private StatefulRedisConnection<String, String> adminConnection;
  private final String adminPassword;
  /** The process id of the server while {@link #pause()} holds it stopped, else -1. */
  private long paused = -1;

  private RedisTestServer(int port, List<String> settings, String adminPassword) {
    this.port = port;
    this.settings = settings;
    this.adminPassword = adminPassword;
  }

  static RedisTestServer start(String... extraSettings) {
    return withPassword(null, extraSettings);
  }

  /** A server that a test class's {@code @RegisterExtension} starts and stops. */
  static RedisTestServer perClass() {
    return new RedisTestServer(freePort(), new ArrayList<>(List.of("save \"\"", "appendonly no")), null);
  }

  // Nested test classes see the extension again; the class that started the server stops it.
  private String startedBy;

  @Override
  public void beforeAll(ExtensionContext context) {
    if (startedBy == null) {
      startedBy = context.getUniqueId();
      startServer();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    if (context.getUniqueId().equals(startedBy)) {
      startedBy = null;
      close();
    }
  }

  /** A server meant for {@code port}, which moves to a free one if that is taken when it starts. */
  static RedisTestServer startNear(int port) {
    RedisTestServer s = new RedisTestServer(port, new ArrayList<>(List.of("save \"\"", "appendonly no")), null);
    s.startServer();
    return s;
  }

  /** With {@code adminPassword} for the default user when the settings require one. */
  static RedisTestServer withPassword(String adminPassword, String... extraSettings) {
    List<String> settings = new ArrayList<>(List.of("save \"\"", "appendonly no"));
    settings.addAll(List.of(extraSettings));
    RedisTestServer s = new RedisTestServer(freePort(), settings, adminPassword);
    s.startServer();
    return s;
  }

  int port() {
    return port;
  }

  String url() {
    return "redis://127.0.0.1:" + port;
  }

  /**
   * Starts the server on its port; a first start whose port was taken meanwhile (the free port was
   * found by opening and closing a socket, and any connection may get it as its local port before
   * redis-server binds it) moves to another free port. A restart keeps its port.
   */
  private void startServer() {
    for (int attempt = 1; ; attempt++) {
      try {
        server = launch(build(), port);
        break;
      } catch (UncheckedIOException e) {
        if (server != null || attempt == 5 || !saysSo(e, "Address already in use")) {
          throw e;
        }
        port = freePort();
      }
    }
    if (!server.isActive()) {
      throw new IllegalStateException("redis-server is not active on port " + port);
    }
  }

  /**
   * Starts {@code s}, again after a short pause while exec fails with "Text file busy": the
   * binary is written to a fresh file for each server, and a process forked meanwhile by a test
   * class running beside this one holds the file open for writing until it execs.
   */
  static RedisServer launch(RedisServer s, int port) {
    for (int attempt = 1; ; attempt++) {
      try {
        s.start();
        return s;
      } catch (IOException e) {
        if (attempt == 5 || !saysSo(e, "Text file busy")) {
          throw new UncheckedIOException("redis-server did not start on port " + port, e);
        }
        java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L * attempt);
      }
    }
  }

  private RedisServer build() {
    RedisServerBuilder b = RedisServer.newRedisServer().port(port).bind("127.0.0.1");
    for (String s : settings) {
      b.setting(s);
    }
    try {
      return b.build();
    } catch (IOException e) {
      throw new IllegalStateException("redis-server could not be prepared for port " + port, e);
    }
  }

  /** Whether a message in {@code e}'s cause chain contains {@code text}. */
  private static boolean saysSo(Throwable e, String text) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (String.valueOf(t.getMessage()).contains(text)) {
        return true;
      }
    }
    return false;
  }

  /** The server's process id, as INFO server gives it. */
  long pid() {
    return processId(admin().sync().info("server"));
  }

  /** The process id of the redis-server without a password on {@code port}. */
  static long pidOf(int port) {
    RedisClient c = RedisClient.create(RedisURI.create("127.0.0.1", port));
    try (StatefulRedisConnection<String, String> conn = c.connect()) {
      return processId(conn.sync().info("server"));
    } finally {
      c.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static long processId(String info) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("process_id:")) {
        return Long.parseLong(line.substring("process_id:".length()).trim());
      }
    }
    throw new IllegalStateException("no process_id in INFO server");
  }

  /**
   * Freezes the server with SIGSTOP, as a long pause would: its socket still accepts connections
   * and takes commands, but nothing answers. Always {@link #resume} it in a finally block.
   */
  void pause() {
    paused = pid();
    Signals.send("STOP", paused);
  }

  /** Lets a paused server run again (SIGCONT); a no-op if it is not paused. */
  void resume() {
    if (paused > 0) {
      Signals.send("CONT", paused);
      paused = -1;
    }
  }

  /** Stops the server; {@link #startAgain()} brings it back, empty, on the same port. */
  void stop() {
    closeAdmin();
    try {
      server.stop();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts a stopped server again on its port. */
  void startAgain() {
    startServer();
  }

  /** Stops and starts the server on the same port: without persistence, every key is gone. */
  void restart() {
    stop();
    startServer();
  }

  /** INFO commandstats as command name to calls, counting commands run inside scripts too. */
  Map<String, Long> commandCalls() {
    Map<String, Long> calls = new HashMap<>();
    for (String line : admin().sync().info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_")) {
        String name = line.substring("cmdstat_".length(), line.indexOf(':'));
        int from = line.indexOf("calls=") + "calls=".length();
        calls.put(name, Long.parseLong(line.substring(from, line.indexOf(',', from))));
      }
    }
    return calls;
  }

  /** The commands run since {@code before} (a {@link #commandCalls()}), INFO itself left out. */
  Map<String, Long> callsSince(Map<String, Long> before) {
    Map<String, Long> delta = new HashMap<>();
    commandCalls().forEach((k, v) -> {
      long diff = v - before.getOrDefault(k, 0L);
      if (diff != 0 && !k.equals("info")) {
        delta.put(k, diff);
      }
    });
    return delta;
  }

  /**
   * Waits until the server has seen a crashed client's connections close: nobody listens on its
   * channel any more. Closing a socket is not synchronous with the server, so a release sent right
   * after a crash may still find the dead client subscribed. There is no event to wait on; this
   * checks every 10 ms.
   */
  void awaitNoListener(String clientId, Duration timeout) throws InterruptedException {
    String channel = "dlock:client:" + clientId;
    long deadline = System.nanoTime() + timeout.toNanos();
    while (admin().sync().pubsubNumsub(channel).getOrDefault(channel, 0L) > 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the server still has a listener on " + channel + " after " + timeout);
      }
      Thread.sleep(10);
    }
  }

  /**
   * Blocks the redis-server on {@code port} for {@code seconds} with DEBUG SLEEP, as a long pause
   * would; returns once the server is asleep, not when the sleep ends.
   */
  static void stall(int port, int seconds) {
    // Returns once the server is asleep: a PING that goes unanswered shows it. Returning at the
    // dispatch let the caller's next command reach the server before the sleep began.
    RedisClient probe = RedisClient.create(RedisURI.create("127.0.0.1", port));
    probe.setDefaultTimeout(Duration.ofMillis(200));
    try (StatefulRedisConnection<String, String> ping = probe.connect()) {
      RedisClient c = RedisClient.create(RedisURI.create("127.0.0.1", port));
      StatefulRedisConnection<String, String> conn = c.connect();
      conn.async().dispatch(CommandType.DEBUG, new StatusOutput<>(StringCodec.UTF8),
              new CommandArgs<>(StringCodec.UTF8).add("SLEEP").add(seconds))
          .whenComplete((r, e) -> c.shutdownAsync());
      long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos() / 2;
      while (true) {
        try {
          ping.sync().ping();
        } catch (RedisCommandTimeoutException asleep) {
          return;
        }
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("127.0.0.1:" + port + " still answers after DEBUG SLEEP " + seconds);
        }
      }
    } finally {
      probe.shutdown();
    }
  }

  /** The fencing-token counter of exclusive lock {@code name} under the default prefix. */
  long counter(String name) {
    byte[] key = new Keys(RedisUrl.DEFAULT_PREFIX).of(name)[1];
    return Long.parseLong(admin().sync().get(new String(key, StandardCharsets.UTF_8)));
  }

  /** Every key of lock {@code name} under {@code prefix}, of every kind, token counters included. */
  static String[] keysOf(String prefix, String name) {
    Keys keys = new Keys(prefix);
    List<String> all = new ArrayList<>();
    for (byte[][] kind : List.of(keys.of(name), keys.fair(name), keys.readWrite(name),
        keys.semaphore(name))) {
      for (byte[] key : kind) {
        all.add(new String(key, StandardCharsets.UTF_8));
      }
    }
    return all.toArray(String[]::new);
  }

  /** Deletes every key of lock {@code name} under {@code prefix}, as a restart without persistence would. */
  void forget(String prefix, String name) {
    admin().sync().del(keysOf(prefix, name));
  }

  /** Resets INFO commandstats. */
  void resetStats() {
    admin().sync().configResetstat();
  }

  StatefulRedisConnection<String, String> admin() {
    if (adminConnection == null) {
      RedisURI uri = RedisURI.create("127.0.0.1", port);
      if (adminPassword != null) {
        uri.setPassword(adminPassword);
      }
      uri.setTimeout(Duration.ofSeconds(5));
      admin = RedisClient.create(uri);
      adminConnection = admin.connect();
    }
    return adminConnection;
  }

  private void closeAdmin() {
    if (adminConnection != null) {
      adminConnection.close();
      admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      adminConnection = null;
      admin = null;
    }
  }

  @Override
  public void close() throws IOException {
    resume();
    closeAdmin();
    if (server != null) {
      server.stop();
    }
  }

  static int freePort() {
    return FreePorts.next();
  }
}
