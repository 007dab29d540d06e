package dev.dlock.bench.targets;

import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * Spring Integration's {@link RedisLockRegistry} on the run's redis-server
 * ({@link RedisBenchServer}), with its defaults: the spin lock, whose waiting {@code lock()} retries
 * every 100 ms. Each client is what one application would have: its own Lettuce connection factory
 * and registry. Wired by hand, as a Spring context would, so the bench needs no application context.
 */
public final class SpringRedisTarget implements Target {
  static final String NAME = "spring-redis";

  private final List<LettuceConnectionFactory> factories = new ArrayList<>();
  private final List<RedisLockRegistry> registries = new ArrayList<>();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> forkJvmArgs() {
    return RedisBenchServer.forkJvmArgs();
  }

  @Override
  public void setUp(int clients) {
    RedisURI uri = RedisURI.create(RedisBenchServer.url());
    for (int i = 0; i < clients; i++) {
      LettuceConnectionFactory factory =
          new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
      factory.afterPropertiesSet();
      factory.start();
      factories.add(factory);
      registries.add(new RedisLockRegistry(factory, "spring-redis"));
    }
  }

  @Override
  public Lock lock(int client, String key) {
    return registries.get(client).obtain(key);
  }

  @Override
  public void tearDown() {
    registries.forEach(RedisLockRegistry::destroy);
    factories.forEach(LettuceConnectionFactory::destroy);
    registries.clear();
    factories.clear();
  }
}
