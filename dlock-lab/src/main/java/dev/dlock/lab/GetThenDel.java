package dev.dlock.lab;

import io.lettuce.core.SetArgs;
import java.time.Duration;

/**
 * S8-wrong: {@code SET NX PX} with an owner value, released by GET, a comparison in the client, and
 * then DEL. Why it is here: the check and the delete are two commands, so when the lease runs out
 * between them and another client takes the lock, the DEL frees that client's lock. The DEL is
 * sent as GETDEL, as unconditional as DEL, so the release can say whose lock it removed.
 */
final class GetThenDel extends RedisScheme {
  private final Runnable afterGet;

  GetThenDel(String url, String process) {
    this(url, process, () -> {});
  }

  /** {@code afterGet} runs between the GET and the DEL; tests use it to let the lease run out there. */
  GetThenDel(String url, String process, Runnable afterGet) {
    super(url, process);
    this.afterGet = afterGet;
  }

  @Override
  Held tryOnce(String key, Duration lease) {
    String value = nextValue();
    if (redis.set(key, value, SetArgs.Builder.nx().px(lease.toMillis())) == null) {
      return null;
    }
    return new PlainHeld(() -> {
      if (!value.equals(redis.get(key))) {
        return "";
      }
      afterGet.run();
      return owner(redis.getdel(key));
    });
  }
}
