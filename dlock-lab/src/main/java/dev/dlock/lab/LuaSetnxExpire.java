package dev.dlock.lab;

import io.lettuce.core.ScriptOutputType;
import java.time.Duration;

/**
 * S6: SETNX and EXPIRE in one Lua script, so the grant and its expiry are atomic; released by a
 * plain delete. Why it is here: the release checks no owner, so a holder whose lease ran out frees
 * the lock of whoever took it next.
 */
final class LuaSetnxExpire extends RedisScheme {
  private static final String SCRIPT = """
      if redis.call('setnx', KEYS[1], ARGV[1]) == 1 then
        redis.call('pexpire', KEYS[1], ARGV[2])
        return 1
      end
      return 0""";

  LuaSetnxExpire(String url, String process) {
    super(url, process);
  }

  @Override
  Held tryOnce(String key, Duration lease) {
    Long won = redis.eval(SCRIPT, ScriptOutputType.INTEGER, new String[] {key}, nextValue(),
        Long.toString(lease.toMillis()));
    if (won == null || won != 1L) {
      return null;
    }
    return new PlainHeld(() -> owner(redis.getdel(key)));
  }
}
