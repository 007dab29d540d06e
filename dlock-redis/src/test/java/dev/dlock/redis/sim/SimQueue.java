package dev.dlock.redis.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The waiter keys of one lock as the scripts keep them: {@code queue} (owner -> arrival, FIFO),
 * {@code alive} (owner -> server millisecond its place lapses) and
 * {@code leases} (owner -> lease). The scripts PEXPIRE the three keys together by the waiter
 * timeout whenever an owner queues, so they expire as one here; a key whose members are all
 * removed no longer exists, as in Redis.
 */
final class SimQueue {
  private record Entry(String owner, long arrival) {}

  private final List<Entry> queue = new ArrayList<>();
  private final Map<String, Long> alive = new HashMap<>();
  private final Map<String, Long> leases = new HashMap<>();
  private long expiresAt = Long.MAX_VALUE;

  private void expire(long nowMicros) {
    if (nowMicros >= expiresAt) {
      queue.clear();
      alive.clear();
      leases.clear();
      expiresAt = Long.MAX_VALUE;
    }
  }

  /** EXISTS queue. */
  boolean exists(long now) {
    expire(now);
    return !queue.isEmpty();
  }

  /** ZADD queue NX, ZADD alive, HSET leases (lease 0: none recorded), PEXPIRE all. */
  void add(String owner, long now, long lapsesMs, long leaseMs, long waiterTimeoutMs) {
    expire(now);
    if (!alive.containsKey(owner)) {
      int at = 0;
      // ZSET order: by score, then by member.
      while (at < queue.size() && (queue.get(at).arrival() < now
          || queue.get(at).arrival() == now && queue.get(at).owner().compareTo(owner) < 0)) {
        at++;
      }
      queue.add(at, new Entry(owner, now));
    }
    alive.put(owner, lapsesMs);
    if (leaseMs > 0) {
      leases.put(owner, leaseMs);
    }
    expiresAt = now + waiterTimeoutMs * 1000;
  }

  /** ZREM queue, ZREM alive, HDEL leases. */
  void remove(String owner, long now) {
    expire(now);
    if (alive.remove(owner) != null) {
      queue.removeIf(e -> e.owner().equals(owner));
    }
    leases.remove(owner);
  }

  /** ZRANGE queue i i: the i-th oldest waiter, or null. */
  String at(int i, long now) {
    expire(now);
    return i < queue.size() ? queue.get(i).owner() : null;
  }

  /** ZSCORE alive owner, 0 if absent (as the scripts' {@code or 0}). */
  long lapses(String owner, long now) {
    expire(now);
    return alive.getOrDefault(owner, 0L);
  }

  /** HGET leases owner, or -1 if absent. */
  long lease(String owner, long now) {
    expire(now);
    return leases.getOrDefault(owner, -1L);
  }

  /** ZRANGEBYSCORE alive -inf nowMs LIMIT 0 16, in score order. */
  List<String> lapsed(long nowMs, long now) {
    expire(now);
    List<Map.Entry<String, Long>> gone = new ArrayList<>();
    for (Map.Entry<String, Long> e : alive.entrySet()) {
      if (e.getValue() <= nowMs) {
        gone.add(e);
      }
    }
    if (gone.isEmpty()) {
      return List.of();
    }
    gone.sort(Map.Entry.<String, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey()));
    return gone.stream().limit(16).map(Map.Entry::getKey).toList();
  }

  @Override
  public String toString() {
    return queue.stream().map(Entry::owner).toList().toString();
  }
}
