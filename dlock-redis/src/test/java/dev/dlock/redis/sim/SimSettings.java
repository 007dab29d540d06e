package dev.dlock.redis.sim;

/**
 * The timings of a run, in the backend's defaults: the waiter timeout (RedisBackend.WAITER_TIMEOUT,
 * 3 s; a waiter re-polls at least every third of it) and the engine's maxPollInterval (1 s).
 */
record SimSettings(long waiterTimeoutMs, long maxPollMs, long latencyMicros, long[] leases,
    double dropRate, long maxMessageDelayMicros, long horizonMicros) {

  /** The settings every run uses. */
  static SimSettings standard() {
    return new SimSettings(3_000, 1_000, 20_000, new long[] {300, 1_000, 4_000}, 0.15, 3_500_000,
        8_000_000);
  }

  /**
   * How long a lock may stay free while a live waiter waits. Exclusive: a waiter re-polls within
   * min(maxPollInterval, waiterTimeout / 3) and its call takes at most the latency, and acquire.lua
   * grants a free lock to whoever asks. Fair: a dead waiter ahead keeps its place until it lapses,
   * at most the waiter timeout after its last try, so the bound adds the waiter timeout, counted
   * from the later of the lock's release and the last client's death (Invariants).
   */
  long strandBoundMicros(boolean fair) {
    long poll = Math.min(maxPollMs, waiterTimeoutMs / 3) * 1000 + latencyMicros;
    return fair ? poll + waiterTimeoutMs * 1000 + latencyMicros : poll;
  }
}
