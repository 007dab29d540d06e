package dev.dlock.lab;

import java.time.Duration;

/**
 * S4: {@code SETNX} and then {@code EXPIRE} as a second command, released by a plain delete. Why
 * it is here: the two commands are not atomic, so a holder that dies between them leaves a key
 * with no expiry, which no one can ever take again. The expiry is set with {@code PEXPIRE}, the
 * millisecond form of {@code EXPIRE}, so leases under a second keep their length.
 */
final class SetnxThenExpire extends RedisScheme {
  private final Runnable gap;

  /** {@code gap} runs between SETNX and EXPIRE: the worker's {@code --gap} parks there to be killed. */
  SetnxThenExpire(String url, String process, Runnable gap) {
    super(url, process);
    this.gap = gap;
  }

  @Override
  Held tryOnce(String key, Duration lease) {
    String value = nextValue();
    if (!redis.setnx(key, value)) {
      return null;
    }
    gap.run();
    redis.pexpire(key, lease.toMillis());
    return new PlainHeld(() -> owner(redis.getdel(key)));
  }
}
