package dev.dlock.lab;

import io.lettuce.core.SetArgs;
import java.time.Duration;

/**
 * S7: {@code SET key value NX PX lease}, released by a plain delete. Why it is here: the acquire is
 * atomic, but the lease can end while the work still runs, and the delete then frees the lock of
 * the next holder.
 */
final class SetNxPx extends RedisScheme {
  SetNxPx(String url, String process) {
    super(url, process);
  }

  @Override
  Held tryOnce(String key, Duration lease) {
    if (redis.set(key, nextValue(), SetArgs.Builder.nx().px(lease.toMillis())) == null) {
      return null;
    }
    return new PlainHeld(() -> owner(redis.getdel(key)));
  }
}
