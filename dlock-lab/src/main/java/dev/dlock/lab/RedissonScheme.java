package dev.dlock.lab;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

/**
 * The peers {@code redisson} (Redisson's {@code RLock}) and {@code redisson-fenced} (its
 * {@code RFencedLock}), as a user runs them: the lab's lease is the client's lock watchdog timeout
 * ({@code Config.setLockWatchdogTimeout}), and {@code tryLock(wait, unit)}, with no lease of its
 * own, leaves the lock to the watchdog, which renews it every third of that while the JVM runs.
 * Why both: the fenced lock is Redisson's answer to the paused holder, and the lab must show
 * whether the answer holds. Redisson tells a holder nothing when its lease runs out, so
 * {@link Held#lost()} says false; its {@code unlock()} throws {@link IllegalMonitorStateException}
 * when the lock is no longer this thread's, which is a release that freed nothing.
 */
final class RedissonScheme implements Scheme {
  private final RedissonClient client;
  private final String process;
  private final Duration lease;
  private final boolean fenced;

  RedissonScheme(String url, String process, Duration lease, boolean fenced) {
    PeerUrl.Redis redis = PeerUrl.redis(url);
    this.process = process;
    this.lease = lease;
    this.fenced = fenced;
    Config config = new Config().setLockWatchdogTimeout(lease.toMillis());
    SingleServerConfig server = config.useSingleServer().setAddress(redis.address())
        .setDatabase(redis.database()).setClientName(process);
    if (redis.user() != null) {
      server.setUsername(redis.user());
    }
    if (redis.password() != null) {
      server.setPassword(redis.password());
    }
    client = Redisson.create(config);
  }

  @Override
  public Held acquire(String lock, Duration lease, Duration wait) throws Exception {
    Schemes.checkLease(fenced ? "redisson-fenced" : "redisson", this.lease, lease);
    String key = "lab:" + lock;
    if (fenced) {
      RFencedLock l = client.getFencedLock(key);
      Long token = l.tryLockAndGetToken(wait.toMillis(), TimeUnit.MILLISECONDS);
      return token == null ? null : held(l, token);
    }
    RLock l = client.getLock(key);
    return l.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? held(l, -1) : null;
  }

  private Held held(RLock l, long token) {
    return new Held() {
      @Override
      public long token() {
        return token;
      }

      @Override
      public boolean lost() {
        return false;
      }

      @Override
      public String release() {
        try {
          l.unlock();
          return process;
        } catch (IllegalMonitorStateException e) {
          return ""; // the lease ran out and the lock is no longer this thread's
        }
      }
    };
  }

  @Override
  public boolean fenced() {
    return fenced;
  }

  @Override
  public void close() {
    client.shutdown();
  }
}
