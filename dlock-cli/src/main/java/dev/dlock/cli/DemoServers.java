package dev.dlock.cli;

import dev.dlock.cli.DemoWorker.Strategy;
import dev.dlock.lab.LabServer;
import dev.dlock.lab.Servers;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The embedded Redis and ZooKeeper servers of {@code dlock demo}, each started when a strategy first
 * needs it, and every strategy's lock URL.
 */
final class DemoServers implements AutoCloseable {
  private final Path dir;
  private LabServer redis;
  private LabServer zookeeper;

  DemoServers(Path dir) {
    this.dir = dir;
  }

  /** The lock URL of {@code strategy}, given the shop's H2 URL; {@code null} when it takes no lock. */
  String lockUrl(Strategy strategy, String shopUrl) {
    switch (strategy) {
      case LEASE:
        return shopUrl;
      case SESSION:
        return shopUrl + ";dlockMode=session";
      case REDIS:
        if (redis == null) {
          redis = Servers.start("redis", dir.resolve("redis"), Duration.ofSeconds(10));
        }
        return redis.url();
      case ZOOKEEPER:
        if (zookeeper == null) {
          zookeeper = Servers.start("zk", dir.resolve("zookeeper"), Duration.ofSeconds(10));
        }
        return zookeeper.url();
      default:
        return null;
    }
  }

  @Override
  public void close() {
    if (redis != null) {
      redis.close();
    }
    if (zookeeper != null) {
      zookeeper.close();
    }
  }
}
