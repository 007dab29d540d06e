package dev.dlock.redis;

import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockBackendProvider;
import java.util.Set;

/**
 * Opens the Redis backend for {@code redis://[user:password@]host:port[/db][?prefix=dlock:]} and
 * {@code rediss://...} (TLS) URLs. Lettuce's own URL parameters, such as {@code timeout=10s} or
 * {@code verifyPeer=CA}, pass through; {@code prefix} (default {@code dlock:}, no braces) starts
 * every key and channel the backend uses.
 *
 * <p>Each lock is a string key holding its owner with a server-side expiry, a fencing-token
 * counter, and a FIFO of waiting owners; a release wakes only the client of the oldest waiter,
 * through that client's own pub/sub channel. Fair locks, read-write locks and semaphores have keys
 * of their own under the same hash tag ({@code :fair:*}, {@code :rw:*}, {@code :sem:*}), with a
 * FIFO of waiters, per-holder leases on the server's clock, and wake-ups sent only to the clients
 * a release lets in. Tokens come from a per-lock counter in Redis, so they
 * can go backwards when Redis loses data: a restart without persistence, or a failover to a
 * replica that had not received the latest grants.
 */
public final class RedisBackendProvider implements LockBackendProvider {

  /** For ServiceLoader. */
  public RedisBackendProvider() {}

  @Override
  public Set<String> schemes() {
    return Set.of("redis", "rediss");
  }

  @Override
  public LockBackend open(String url) {
    return RedisBackend.open(RedisUrl.parse(url), RedisBackend.WAITER_TIMEOUT);
  }
}
