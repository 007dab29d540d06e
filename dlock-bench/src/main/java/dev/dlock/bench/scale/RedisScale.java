package dev.dlock.bench.scale;

import dev.dlock.bench.targets.RedisBenchServer;
import dev.dlock.spi.LockBackend;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.KeyScanCursor;

/**
 * The bench's redis-server, with a key prefix of its own. Requests are the script calls in INFO
 * commandstats (dlock sends nothing else to renew, acquire or release); server operations are all
 * of its calls, the commands a script runs included. Keys are counted by SCAN of the prefix.
 */
final class RedisScale implements ScaleBackend {
  static final String PREFIX = "dlock-scale:";
  private final String url = RedisBenchServer.url();
  private final RedisClient admin = RedisClient.create(url);
  private final StatefulRedisConnection<String, String> connection = admin.connect();

  @Override
  public String name() {
    return "redis";
  }

  @Override
  public LockBackend open() {
    return ScaleBackend.openUrl(url + "?prefix=" + PREFIX);
  }

  @Override
  public long requests() {
    return RedisBenchServer.commandCalls(connection)[0];
  }

  @Override
  public long serverOps() {
    return RedisBenchServer.commandCalls(connection)[1];
  }

  /** The usec of the script calls in INFO commandstats: the server's time in scripts, the commands they run included. */
  @Override
  public long serverMicros() {
    long micros = 0;
    for (String line : connection.sync().info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_eval")) {
        int from = line.indexOf("usec=") + "usec=".length();
        micros += Long.parseLong(line.substring(from, line.indexOf(',', from)));
      }
    }
    return micros;
  }

  @Override
  public long stored() {
    long keys = 0;
    ScanArgs match = ScanArgs.Builder.matches(PREFIX + "*").limit(10_000);
    KeyScanCursor<String> cursor = connection.sync().scan(match);
    while (true) {
      keys += cursor.getKeys().size();
      if (cursor.isFinished()) {
        return keys;
      }
      cursor = connection.sync().scan(ScanCursor.of(cursor.getCursor()), match);
    }
  }

  @Override
  public String storedUnit() {
    return "keys";
  }

  @Override
  public String legend() {
    return "redis: the bench's embedded redis-server 6.2, prefix " + PREFIX + "; requests = script calls"
        + " (INFO commandstats), server ops = every command it ran, those inside scripts included;"
        + " server time = the usec of the script calls (a script blocks every other client that long);"
        + " stored = keys under the prefix (SCAN).";
  }

  @Override
  public void close() {
    connection.close();
    admin.shutdown();
  }
}
