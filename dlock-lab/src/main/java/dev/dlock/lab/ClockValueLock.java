package dev.dlock.lab;

import java.time.Duration;

/**
 * S5: {@code SETNX key <now + lease>} by the client's clock; a client that finds the lock taken
 * reads the time with GET and, if it has passed by its own clock, races with GETSET and wins if
 * the old value is the one it read. Release deletes the key, but only while our own time has not
 * passed by our clock. Why it is here: the expiry is the client's clock, so a client whose clock
 * runs ahead takes a live lock; concurrent GETSETs overwrite each other's time; and the value names
 * no owner, so a release cannot know whose lock it deletes: it says {@code ?} when the value it
 * removed is not the one it set.
 */
final class ClockValueLock extends RedisScheme {
  private final long offsetMillis;

  /** {@code clockOffset} is added to this client's clock, for the {@code skew} fault. */
  ClockValueLock(String url, String process, Duration clockOffset) {
    super(url, process);
    this.offsetMillis = clockOffset.toMillis();
  }

  long now() {
    return System.currentTimeMillis() + offsetMillis;
  }

  @Override
  Held tryOnce(String key, Duration lease) {
    String mine = Long.toString(now() + lease.toMillis());
    if (redis.setnx(key, mine)) {
      return held(key, mine);
    }
    String seen = redis.get(key);
    if (seen == null || parse(seen) > now()) {
      return null;
    }
    mine = Long.toString(now() + lease.toMillis());
    return seen.equals(redis.getset(key, mine)) ? held(key, mine) : null;
  }

  private Held held(String key, String mine) {
    return new PlainHeld(() -> {
      if (Long.parseLong(mine) <= now()) {
        return "";
      }
      String removed = redis.getdel(key);
      return removed == null ? "" : removed.equals(mine) ? process : "?";
    });
  }

  private static long parse(String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalStateException("S5 lock value is not a time in milliseconds: '" + value + "'", e);
    }
  }
}
