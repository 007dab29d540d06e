package dev.dlock.zookeeper.sim;

/**
 * The timings of a run, in microseconds of virtual time, scaled down from the defaults so that a
 * run of a few session timeouts takes a few hundred steps. The ratios are the backend's: the lease
 * is two fifths of the session timeout (ZkSession.lease()), renewals come every third of it, the
 * ZooKeeper client pings after a third of the timeout idle, and it drops its connection after two
 * thirds of it without hearing from the server.
 */
final class Timing {
  static final long SESSION_TIMEOUT = 600_000;
  static final long LEASE = SESSION_TIMEOUT * 2 / 5;
  static final long RENEW_EVERY = LEASE / 3;
  static final long PING_EVERY = SESSION_TIMEOUT / 3;
  static final long READ_TIMEOUT = SESSION_TIMEOUT * 2 / 3;
  /** The engine's maxPollInterval: a waiter asks again at least this often. */
  static final long MAX_POLL = 150_000;
  /** One way of a call: mostly up to FAST, one in five up to SLOW. */
  static final long FAST_LEG = 2_000;
  static final long SLOW_LEG = 60_000;
  /**
   * How stale the leader's knowledge of a session may be when it answers a call sent at s: it last
   * touched the session no earlier than s - T/4 - T/3 (the derivation in ZkSession.lease()), so it
   * keeps the session at least 5T/12 after s.
   */
  static final long MAX_TOUCH_LAG = SESSION_TIMEOUT / 4 + SESSION_TIMEOUT / 3;
  /**
   * How long a live waiter may head the queue unserved: a re-poll within MAX_POLL, plus up to four
   * round trips of slow legs (a stale listing, a watch on a predecessor gone meanwhile, an adopt
   * after a reconnect, and the listing that grants).
   */
  static final long STRAND_BOUND = MAX_POLL + 4 * 2 * SLOW_LEG;
  static final long HORIZON = 3 * SESSION_TIMEOUT;

  private Timing() {}
}
