package dev.dlock.bench.targets;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's answers to a replicated Redis, on the run's {@link HaBenchServers}: its {@code RLock}
 * in sentinel mode and in replicated mode (the same master and replica, found by polling their
 * roles instead of asking the Sentinels), and its {@code RedissonRedLock} over five independent
 * masters. Why one class for all three: each is a list of {@link RedissonClient}s per bench client,
 * built from Redisson's defaults with only the addresses set, and differs only in how the lock is
 * made from them. A bench
 * client of the Redlock kind is five RedissonClients, one per master, as five processes' worth of
 * connections would be for one application. Keys carry the target's name.
 */
public final class RedissonHaTarget implements Target {
  static final String SENTINEL = "redisson-sentinel";
  static final String REPLICATED = "redisson-replicated";
  static final String REDLOCK = "redisson-redlock";

  private final String name;
  private final List<List<RedissonClient>> clients = new ArrayList<>();

  private RedissonHaTarget(String name) {
    this.name = name;
  }

  static RedissonHaTarget sentinel() {
    return new RedissonHaTarget(SENTINEL);
  }

  static RedissonHaTarget replicated() {
    return new RedissonHaTarget(REPLICATED);
  }

  static RedissonHaTarget redlock() {
    return new RedissonHaTarget(REDLOCK);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<String> forkJvmArgs() {
    return isRedlock() ? HaBenchServers.redlockForkJvmArgs() : HaBenchServers.sentinelForkJvmArgs();
  }

  @Override
  public void setUp(int count) {
    for (int i = 0; i < count; i++) {
      List<RedissonClient> one = new ArrayList<>();
      clients.add(one);
      if (isRedlock()) {
        for (String node : HaBenchServers.redlockNodes()) {
          Config config = new Config();
          config.useSingleServer().setAddress("redis://" + node);
          one.add(Redisson.create(config));
        }
      } else if (REPLICATED.equals(name)) {
        Config config = new Config();
        var replicated = config.useReplicatedServers();
        for (String address : HaBenchServers.replicatedServers()) {
          replicated.addNodeAddress("redis://" + address);
        }
        one.add(Redisson.create(config));
      } else {
        Config config = new Config();
        var sentinel = config.useSentinelServers().setMasterName(HaBenchServers.MASTER);
        for (String address : HaBenchServers.sentinels().split(",")) {
          sentinel.addSentinelAddress("redis://" + address);
        }
        one.add(Redisson.create(config));
      }
    }
  }

  @Override
  @SuppressWarnings("deprecation") // RedissonRedLock: still in 3.52, the algorithm asked for
  public Lock lock(int client, String key) {
    String k = name + ":" + key;
    List<RedissonClient> one = clients.get(client);
    if (!isRedlock()) {
      return one.get(0).getLock(k);
    }
    RLock[] locks = one.stream().map(c -> c.getLock(k)).toArray(RLock[]::new);
    return new RedissonRedLock(locks);
  }

  @Override
  public void tearDown() {
    clients.forEach(one -> one.forEach(RedissonClient::shutdown));
    clients.clear();
  }

  private boolean isRedlock() {
    return REDLOCK.equals(name);
  }
}
