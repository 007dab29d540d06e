package dev.dlock.lab;

import java.time.Duration;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The peer {@code spring-redis}: Spring Integration's {@code RedisLockRegistry} over Spring Data
 * Redis with Lettuce, wired by hand as a Spring context would wire it, with {@code expireAfter}
 * the lab's lease and its default spin lock (a waiting {@code tryLock} tries every 100 ms).
 *
 * <p>Why the renewal scheduler is on: since 6.4 the registry renews a held lock every third of
 * {@code expireAfter} once it is given a {@code TaskScheduler}, which is how a user keeps a short
 * expiry for a dead holder and still runs work longer than it; that is the watchdog the other
 * peers have, so the lab turns it on. The registry never tells a holder its lock expired and has
 * no token; its {@code unlock()} throws {@code ConcurrentModificationException} when the key is no
 * longer this registry's, which is a release that freed nothing.
 */
final class SpringRedisScheme {
  private SpringRedisScheme() {}

  /** Opens the peer for worker {@code process} on the Redis at peer URL {@code url}. */
  static Scheme open(String url, String process, Duration lease) {
    PeerUrl.Redis redis = PeerUrl.redis(url);
    RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(redis.host(), redis.port());
    server.setDatabase(redis.database());
    if (redis.user() != null) {
      server.setUsername(redis.user());
    }
    if (redis.password() != null) {
      server.setPassword(RedisPassword.of(redis.password()));
    }
    LettuceConnectionFactory factory = new LettuceConnectionFactory(server);
    factory.setEagerInitialization(true); // connect now, so READY means connected
    factory.afterPropertiesSet();
    factory.start();
    ThreadPoolTaskScheduler renewal = new ThreadPoolTaskScheduler();
    renewal.setThreadNamePrefix("lock-renewal-");
    renewal.initialize();
    RedisLockRegistry registry = new RedisLockRegistry(factory, "lab-spring-redis", lease.toMillis());
    registry.setRenewalTaskScheduler(renewal);
    return new SpringLockScheme("spring-redis", registry, process, lease, () -> {
      try {
        registry.destroy();
        renewal.shutdown();
      } finally {
        factory.destroy();
      }
    });
  }
}
