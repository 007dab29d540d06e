package dev.dlock.lab;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import redis.embedded.core.ExecutableProvider;

/**
 * A real redis-server as a child process of the lab, on 127.0.0.1, with a data directory of its
 * own: {@link #pid()} is the server itself, so {@code kill -STOP} and {@code kill -9} hit it alone.
 *
 * <p>Why not embedded-redis's {@code RedisServer}: it hides the process and stops it gently; the
 * lab needs the pid and a real crash. It only borrows the binary the embedded-redis jar ships,
 * extracted once per JVM.
 */
public final class RedisProcess extends ChildServer {
  /** What survives a {@link #restart()}. */
  public enum Persistence {
    /** {@code save ""}, {@code appendonly no}: a restart loses every key (fault F3). */
    NONE,
    /** {@code appendonly yes}, {@code appendfsync always}: every write is on disk first (F3-aof). */
    AOF_ALWAYS
  }

  private static Path binary;

  private final Persistence persistence;
  private final Map<String, String> environment;

  private RedisProcess(int port, Path dir, Persistence persistence, Map<String, String> environment) {
    super("redis-server", port, dir);
    this.persistence = persistence;
    this.environment = Map.copyOf(environment);
  }

  /**
   * Starts a redis-server on a free port with a new data directory under {@code baseDir}; returns
   * once it answers PING.
   */
  public static RedisProcess start(Path baseDir, Persistence persistence) {
    return start(baseDir, persistence, Map.of());
  }

  /**
   * As {@link #start(Path, Persistence)}, with {@code environment} added to the server's at every
   * launch, such as a fake clock's (libfaketime's variables).
   */
  public static RedisProcess start(Path baseDir, Persistence persistence, Map<String, String> environment) {
    Objects.requireNonNull(persistence, "persistence");
    Objects.requireNonNull(environment, "environment");
    return startOnFreePort(baseDir, "redis", (port, dir) -> new RedisProcess(port, dir, persistence, environment));
  }

  /** Starts {@code n} independent servers, as Redlock needs; all or none. */
  public static List<RedisProcess> startMany(Path baseDir, int n, Persistence persistence) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be at least 1, was " + n);
    }
    List<RedisProcess> servers = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        servers.add(start(baseDir, persistence));
      }
      return servers;
    } catch (RuntimeException e) {
      servers.forEach(RedisProcess::close);
      throw e;
    }
  }

  /** The Redlock URL of {@code servers}: {@code redlock://127.0.0.1:p1,127.0.0.1:p2,...}. */
  public static String redlockUrl(List<RedisProcess> servers) {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("a Redlock URL needs at least one server, was none");
    }
    return servers.stream().map(s -> "127.0.0.1:" + s.port).collect(Collectors.joining(",", "redlock://", ""));
  }

  /** The persistence this server was started with. */
  public Persistence persistence() {
    return persistence;
  }

  @Override
  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  @Override
  public String toString() {
    return "redis-server " + url() + " (" + persistence + ", " + dir + ")";
  }

  @Override
  protected void launch() {
    Path conf = dir.resolve("redis.conf");
    Path log = dir.resolve("redis.log");
    Process process;
    try {
      Files.writeString(conf, String.join("\n",
          "port " + port,
          "bind 127.0.0.1",
          "dir " + dir.toAbsolutePath(),
          "daemonize no",
          "save \"\"",
          persistence == Persistence.AOF_ALWAYS ? "appendonly yes" : "appendonly no",
          "appendfsync always",
          ""));
      ProcessBuilder builder = new ProcessBuilder(binary().toString(), conf.toString());
      builder.environment().putAll(environment);
      process = builder.directory(dir.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start redis-server on port " + port + ": " + e, e);
    }
    started(process);
    Procs.awaitReady("redis-server", port, log, process.toHandle(),
        () -> Procs.ask(port, "PING\r\n", false).startsWith("+PONG"));
  }

  /**
   * The redis-server of the embedded-redis jar for this OS, extracted once per JVM; Sentinel is the
   * same binary with {@code --sentinel}.
   */
  static synchronized Path binary() throws IOException {
    if (binary == null) {
      Path dir = Files.createTempDirectory("dlock-lab-redis-bin-");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> Procs.deleteTree(dir), "dlock-lab-redis-bin"));
      binary = ExecutableProvider.newJarResourceProvider(dir.toFile()).get().toPath();
    }
    return binary;
  }
}
