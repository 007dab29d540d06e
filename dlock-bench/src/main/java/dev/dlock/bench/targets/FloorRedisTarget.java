package dev.dlock.bench.targets;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.Lock;

/**
 * The Redis floor: the fewest round trips any Redis lock needs, two script calls a cycle, with the
 * raw Lettuce client on the run's redis-server ({@link RedisBenchServer}). "Acquire" is an
 * {@code EVALSHA} of a script that sets the key if absent with a lease; "release" one that deletes
 * it if it still holds this owner's token. No waiting, renewal or notification: what is left is
 * the network and the server, which a lock cannot do without.
 *
 * <p>{@value #FENCED} is the same floor with a fencing token: its acquire also increments a
 * counter key and answers its value, the least a lock that hands out tokens does more. Why it is
 * here: it shows how much of a fenced lock's distance to {@value #NAME} the token alone costs.
 */
final class FloorRedisTarget implements Target {
  static final String NAME = "floor-redis";
  static final String FENCED = "floor-redis-token";
  static final String LEGEND = NAME + ": the Redis floor, two EVALSHA calls a cycle with Lettuce (a"
      + " set-if-absent with a 30 s lease, a compare-and-delete), one connection per client, no lock logic. "
      + FENCED + ": the same, with an INCR of a token counter in the acquire script, whose value it answers.";
  private static final String LEASE_MILLIS = "30000";
  // Our own scripts. Integers out, so Lettuce decodes them without a status or null reply.
  private static final String ACQUIRE =
      "if redis.call('set', KEYS[1], ARGV[1], 'nx', 'px', ARGV[2]) then return 1 end return 0";
  private static final String ACQUIRE_FENCED =
      "if redis.call('set', KEYS[1], ARGV[1], 'nx', 'px', ARGV[2]) then return redis.call('incr', KEYS[2]) end"
      + " return 0";
  private static final String RELEASE =
      "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

  private final boolean fenced;
  private final List<RedisClient> clients = new ArrayList<>();
  private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
  private String acquireSha = "";
  private String releaseSha = "";

  private FloorRedisTarget(boolean fenced) {
    this.fenced = fenced;
  }

  /** {@value #NAME}. */
  static FloorRedisTarget plain() {
    return new FloorRedisTarget(false);
  }

  /** {@value #FENCED}. */
  static FloorRedisTarget fenced() {
    return new FloorRedisTarget(true);
  }

  @Override
  public String name() {
    return fenced ? FENCED : NAME;
  }

  @Override
  public List<String> forkJvmArgs() {
    return RedisBenchServer.forkJvmArgs();
  }

  @Override
  public void setUp(int count) {
    for (int i = 0; i < count; i++) {
      RedisClient client = RedisBenchServer.admin();
      clients.add(client);
      connections.add(client.connect());
    }
    acquireSha = connections.get(0).sync().scriptLoad(fenced ? ACQUIRE_FENCED : ACQUIRE);
    releaseSha = connections.get(0).sync().scriptLoad(RELEASE);
  }

  @Override
  public Lock lock(int client, String key) {
    RedisCommands<String, String> redis = connections.get(client).sync();
    String lockKey = name() + ":" + key;
    String[] keys = fenced ? new String[] {lockKey, lockKey + ":token"} : new String[] {lockKey};
    String token = UUID.randomUUID().toString();
    return new FloorLock(name(), key,
        () -> redis.<Long>evalsha(acquireSha, ScriptOutputType.INTEGER, keys, token, LEASE_MILLIS) != 0,
        () -> redis.<Long>evalsha(releaseSha, ScriptOutputType.INTEGER, keys, token) == 1);
  }

  @Override
  public void tearDown() {
    connections.forEach(StatefulRedisConnection::close);
    clients.forEach(RedisClient::shutdown);
    connections.clear();
    clients.clear();
  }
}
