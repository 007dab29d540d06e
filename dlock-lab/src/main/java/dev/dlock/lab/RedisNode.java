package dev.dlock.lab;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One process of a {@link SentinelSet} on 127.0.0.1: a Redis master, a replica of one, or a
 * Sentinel watching one, as {@link #follow} last said. Each (re)launch writes its configuration
 * afresh, so a node killed by a fault comes back in the role it is given then, and a Sentinel
 * forgets what it had written into its own file.
 *
 * <p>Why apart from {@link RedisProcess}: a replication role and a Sentinel's configuration are
 * what a single lab server never needs; both share its binary and {@link ChildServer}'s lifecycle.
 */
final class RedisNode extends ChildServer {
  /** The name Sentinels know the set's master by. */
  static final String MASTER_NAME = "dlock";
  /**
   * How long a master may be silent before a Sentinel counts it down. Not 1 s: right after a
   * switch a Sentinel may wait up to its 1 s ping period to reconnect to the new master, and counts
   * that silence too; with 1 s it failed the new master over again in 4 of about 20 failovers.
   */
  static final int DOWN_AFTER_MILLIS = 2000;
  /** A Sentinel's failover timeout: a failed attempt is retried after twice this. */
  static final int FAILOVER_TIMEOUT_MILLIS = 3000;

  private final boolean sentinel;
  private volatile int upstream;

  private RedisNode(int port, Path dir, boolean sentinel, int upstream) {
    super(sentinel ? "redis-sentinel" : "redis-server", port, dir);
    this.sentinel = sentinel;
    this.upstream = upstream;
  }

  /** A redis-server on a free port: a master when {@code replicaOf} is 0, else a replica of that port. */
  static RedisNode startServer(Path baseDir, int replicaOf) {
    return startOnFreePort(baseDir, replicaOf == 0 ? "redis-master" : "redis-replica",
        (port, dir) -> new RedisNode(port, dir, false, replicaOf));
  }

  /** A Sentinel on a free port that watches the master on port {@code master} (quorum 2). */
  static RedisNode startSentinel(Path baseDir, int master) {
    return startOnFreePort(baseDir, "redis-sentinel", (port, dir) -> new RedisNode(port, dir, true, master));
  }

  /**
   * Sets the role of the next (re)launch: for a server, the master's port to replicate (0: be a
   * master); for a Sentinel, the master's port to watch.
   */
  void follow(int port) {
    upstream = port;
  }

  /** The log the process writes, for errors. */
  Path log() {
    return dir.resolve("redis.log");
  }

  @Override
  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  @Override
  public String toString() {
    return (sentinel ? "redis-sentinel" : "redis-server") + " 127.0.0.1:" + port + " (" + dir + ")";
  }

  @Override
  protected void launch() {
    Path conf = dir.resolve(sentinel ? "sentinel.conf" : "redis.conf");
    List<String> lines = new ArrayList<>(List.of("port " + port, "bind 127.0.0.1", "dir " + dir.toAbsolutePath(),
        "daemonize no"));
    if (sentinel) {
      lines.addAll(List.of(
          "sentinel announce-ip 127.0.0.1",
          "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + upstream + " 2",
          "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS,
          "sentinel failover-timeout " + MASTER_NAME + " " + FAILOVER_TIMEOUT_MILLIS,
          "sentinel parallel-syncs " + MASTER_NAME + " 1"));
    } else {
      lines.addAll(List.of("save \"\"", "appendonly no", "replica-announce-ip 127.0.0.1"));
      if (upstream != 0) {
        lines.add("replicaof 127.0.0.1 " + upstream);
      }
    }
    lines.add("");
    List<String> command = new ArrayList<>(List.of(conf.toString()));
    if (sentinel) {
      command.add("--sentinel");
    }
    Process process;
    try {
      Files.writeString(conf, String.join("\n", lines));
      command.add(0, RedisProcess.binary().toString());
      process = new ProcessBuilder(command)
          .directory(dir.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
          .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + this + ": " + e, e);
    }
    started(process);
    Procs.awaitReady(sentinel ? "redis-sentinel" : "redis-server", port, log(), process.toHandle(),
        () -> Procs.ask(port, "PING\r\n", false).startsWith("+PONG"));
  }
}
