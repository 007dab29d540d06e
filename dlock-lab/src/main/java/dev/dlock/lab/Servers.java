package dev.dlock.lab;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The lab's servers by name: {@code redis} (no persistence), {@code redis-aof} (AOF, fsync always),
 * {@code redlock} (five independent Redis masters), {@code redlock-clock} (the same, with node C's
 * wall clock on a fake clock the lab steps forward: F7), {@code pg}, {@code zk}, {@code zk-ensemble}
 * (three ZooKeeper servers in quorum mode, {@link ZooKeeperEnsemble}) and {@code sentinel} (a Redis
 * master, a replica and three Sentinels, {@link SentinelSet}). ZooKeeper's URL asks for a session as
 * long as the lab's lease, since the session is what a ZooKeeper lock's holder keeps alive.
 */
public final class Servers {
  private Servers() {}

  /** Starts the server {@code name} in a new folder under {@code dir}. */
  public static LabServer start(String name, Path dir, Duration lease) {
    return switch (name) {
      case "redis" -> RedisProcess.start(dir, RedisProcess.Persistence.NONE);
      case "redis-aof" -> RedisProcess.start(dir, RedisProcess.Persistence.AOF_ALWAYS);
      case "redlock" -> new RedisGroup(RedisProcess.startMany(dir, 5, RedisProcess.Persistence.NONE));
      case "redlock-clock" -> FakeClockRedlock.start(dir);
      case "pg" -> PostgresProcess.start(dir);
      case "zk" -> new Renamed(ZooKeeperProcess.start(dir), "?sessionTimeout=" + lease.toMillis() + "ms");
      case "sentinel" -> SentinelSet.start(dir);
      case "zk-ensemble" -> ZooKeeperEnsemble.start(dir, lease);
      default -> throw new IllegalArgumentException("server must be redis, redis-aof, redlock, redlock-clock, pg, zk,"
          + " zk-ensemble or sentinel, was '" + name + "'");
    };
  }

  /** A server whose URL carries parameters of the lab's. */
  private record Renamed(LabServer server, String query) implements LabServer {
    @Override
    public String url() {
      return server.url() + query;
    }

    @Override
    public List<Integer> ports() {
      return server.ports();
    }

    @Override
    public long pid() {
      return server.pid();
    }

    @Override
    public void pause() {
      server.pause();
    }

    @Override
    public void resume() {
      server.resume();
    }

    @Override
    public void restart() {
      server.restart();
    }

    @Override
    public void close() {
      server.close();
    }
  }

}
