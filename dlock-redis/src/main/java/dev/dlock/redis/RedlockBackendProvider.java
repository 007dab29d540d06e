package dev.dlock.redis;

import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockBackendProvider;
import java.util.Set;

/**
 * Opens the Redlock backend (scheme S10) for
 * {@code redlock://[user:password@]h1:p1,h2:p2,h3:p3[,...][?params]}: N &gt;= 3 independent Redis
 * masters sharing the credentials, of which a majority (N/2+1) must grant a lock. Parameters:
 * {@code prefix} (default {@code dlock:}, no braces), {@code nodeTimeout} (how long a round waits
 * for a node, default {@code 50ms}), {@code drift} (clock drift factor, default {@code 0.01}),
 * {@code restartDelay} (a node that started less than this long ago does not vote; default off),
 * {@code timeout} (command timeout, default {@code 2s}) and {@code connectTimeout} (TCP connect,
 * at open and at every reconnect, default {@code 2s}). Durations are written {@code 50ms},
 * {@code 2s}, {@code 1m}. {@code password@} without a user is the password-only form.
 *
 * <p>Exclusive locks only. A waiter takes a place on every node, a node that frees the lock tells
 * its oldest waiter's client, and the waiter retries the majority acquire once a majority told it;
 * a waiter whose messages are lost asks again within a third of the waiter timeout (3 s). Tokens increase while no node loses its data; a restart without
 * persistence or a failover can break both mutual exclusion and token order, which is why a
 * crashed node should restart only after the longest lease (see the README's Redlock section).
 */
public final class RedlockBackendProvider implements LockBackendProvider {

  /** For ServiceLoader. */
  public RedlockBackendProvider() {}

  @Override
  public Set<String> schemes() {
    return Set.of("redlock");
  }

  @Override
  public LockBackend open(String url) {
    return RedlockBackend.open(RedlockUrl.parse(url), RedlockBackend.WAITER_TIMEOUT);
  }
}
