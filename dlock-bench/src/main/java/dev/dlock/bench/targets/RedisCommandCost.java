package dev.dlock.bench.targets;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * Server-side commands per uncontended lock+unlock of each Redis target: the growth of the total
 * calls in INFO commandstats (which counts the commands a Lua script runs, as well as the script
 * call itself) over {@value #CYCLES} cycles of one thread on one key, divided by the cycles. Why
 * measured here, once, after the run: it needs the run's server and one quiet client, and the
 * legend below the table is where it is shown.
 */
final class RedisCommandCost {
  static final int CYCLES = 1000;
  private static final Map<String, String> MEASURED = new LinkedHashMap<>();

  private RedisCommandCost() {}

  /** One legend line for the Redis targets among {@code targets}, measuring them on first use. */
  static synchronized String line(List<String> targets) {
    StringBuilder sb = new StringBuilder();
    for (String t : targets) {
      if (!Targets.REDIS_TARGETS.contains(t)) {
        continue;
      }
      sb.append(sb.length() == 0 ? "" : ", ").append(t).append(' ')
          .append(MEASURED.computeIfAbsent(t, RedisCommandCost::measure));
    }
    return sb.length() == 0 ? "" : "Server-side commands per uncontended lock+unlock (INFO commandstats,"
        + " commands inside scripts included, " + CYCLES + " cycles; in brackets the script calls"
        + " among them): " + sb + ".";
  }

  /** "total (script calls)" per cycle, for example "5.00 (2.00)". */
  private static String measure(String name) {
    Target target = Targets.create(name);
    RedisClient admin = RedisBenchServer.admin();
    try (StatefulRedisConnection<String, String> c = admin.connect()) {
      target.setUp(1);
      try {
        Lock lock = target.lock(0, "bench:command-cost");
        for (int i = 0; i < 50; i++) {
          lock.lock();
          lock.unlock();
        }
        long[] before = RedisBenchServer.commandCalls(c);
        for (int i = 0; i < CYCLES; i++) {
          lock.lock();
          lock.unlock();
        }
        long[] after = RedisBenchServer.commandCalls(c);
        return String.format(Locale.ROOT, "%.2f (%.2f)", (after[1] - before[1]) / (double) CYCLES,
            (after[0] - before[0]) / (double) CYCLES);
      } finally {
        target.tearDown();
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot measure the commands per cycle of " + name, e);
    } finally {
      admin.shutdown();
    }
  }
}
