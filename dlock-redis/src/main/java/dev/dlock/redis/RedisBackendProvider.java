package dev.dlock.redis;

import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockBackendProvider;
import java.util.Set;

/**
 * Opens the Redis backend for one server, a Sentinel-watched master, or a cluster:
 * <ul>
 *   <li>{@code redis://[user:password@]host:port[/db]} and {@code rediss://...} (TLS);</li>
 *   <li>{@code redis-sentinel://[user:password@]host:port,host:port/masterName}: the master that
 *       the Sentinels name, found again after a failover;</li>
 *   <li>{@code redis-cluster://[user:password@]host:port,host:port}: a Redis Cluster, from any of
 *       its nodes; every key of a lock carries the lock's hash tag, so a lock lives in one slot.</li>
 * </ul>
 * {@code password@} without a user is Lettuce's password-only form. Lettuce's settings keep their
 * meaning: {@code timeout} (command timeout, default 5s), {@code database} or {@code db},
 * {@code clientName}, {@code libraryName}, {@code libraryVersion}, {@code verifyPeer}. dlock's:
 * {@code prefix} (default {@code dlock:}, no braces) starts every key and channel;
 * {@code connectTimeout} (default 2s) bounds a TCP connect, at open and at every reconnect;
 * {@code waitReplicas=k} (default 0, off) sends {@code WAIT k waitTimeout} after every grant and
 * renewal, and {@code waitTimeout} (default 200ms) bounds it. With it on, a grant that fewer than
 * k replicas acknowledged is released and the acquire fails with a
 * {@link dev.dlock.BackendUnavailableException}, and such a renewal is not counted. A malformed,
 * unknown or repeated parameter is refused at once, naming it; no message, toString or log shows
 * the password.
 *
 * <p>Each lock is a string key holding its owner with a server-side expiry, a fencing-token
 * counter, and a FIFO of waiting owners; a release wakes only the client of the oldest waiter,
 * through that client's own pub/sub channel. Fair locks, read-write locks and semaphores have keys
 * of their own under the same hash tag ({@code :fair:*}, {@code :rw:*}, {@code :sem:*}), with a
 * FIFO of waiters, per-holder leases on the server's clock, and wake-ups sent only to the clients
 * a release lets in. A token is the larger of a per-lock counter + 1 and the server's clock in
 * microseconds, so it keeps rising when Redis loses the counter (a restart without persistence, a
 * failover to a replica that had not received the latest grants), as long as the server's clock
 * does not step back; the grant itself is what such a loss can give twice ({@code waitReplicas}
 * closes that window for failovers).
 */
public final class RedisBackendProvider implements LockBackendProvider {

  /** For ServiceLoader. */
  public RedisBackendProvider() {}

  @Override
  public Set<String> schemes() {
    return Set.of("redis", "rediss", "redis-sentinel", "rediss-sentinel", "redis-cluster",
        "rediss-cluster");
  }

  @Override
  public LockBackend open(String url) {
    return RedisBackend.open(RedisUrl.parse(url), RedisBackend.WAITER_TIMEOUT);
  }
}
