package dev.dlock.bench.targets;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@code RLock} (S9) or {@code RFairLock} on the run's redis-server
 * ({@link RedisBenchServer}), with Redisson's defaults: a 30 s lease renewed by its watchdog,
 * waiters woken through a per-lock channel. Each client is its own {@link RedissonClient}, as each
 * process would have. Keys carry the target's name, so the two kinds never share a key.
 */
public final class RedissonTarget implements Target {
  static final String LOCK = "redisson";
  static final String FAIR = "redisson-fair";

  private final String name;
  private final boolean fair;
  private final List<RedissonClient> clients = new ArrayList<>();

  private RedissonTarget(String name, boolean fair) {
    this.name = name;
    this.fair = fair;
  }

  static RedissonTarget lock() {
    return new RedissonTarget(LOCK, false);
  }

  static RedissonTarget fair() {
    return new RedissonTarget(FAIR, true);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<String> forkJvmArgs() {
    return RedisBenchServer.forkJvmArgs();
  }

  @Override
  public void setUp(int count) {
    for (int i = 0; i < count; i++) {
      Config config = new Config();
      config.useSingleServer().setAddress(RedisBenchServer.url());
      clients.add(Redisson.create(config));
    }
  }

  @Override
  public Lock lock(int client, String key) {
    RedissonClient c = clients.get(client);
    String k = name + ":" + key;
    return fair ? c.getFairLock(k) : c.getLock(k);
  }

  @Override
  public void tearDown() {
    clients.forEach(RedissonClient::shutdown);
    clients.clear();
  }
}
