package dev.dlock.zookeeper.sim;

/**
 * A deliberate break of the model, so a test can show that the checks catch it: without these, a
 * simulation that passed every seed could be one that checks nothing.
 */
enum Bug {
  /** The holder counts its grant valid from the time a reply came, not from the call's send time. */
  VALID_FROM_REPLY,
  /** The holder counts its grant valid for the whole session timeout, not two fifths of it. */
  LEASE_IS_SESSION_TIMEOUT,
  /** A hand-off passes the token on as it is instead of adding one. */
  HANDOFF_KEEPS_TOKEN,
  /** A waiter watches the head, not its predecessor, and takes the head's deletion as its turn. */
  WATCH_HEAD,
  /** A waiter never re-polls: it sleeps until a watch event, so a lost one strands it. */
  NO_REPOLL,
  /**
   * The backend before seed 4050 was fixed: a waiter whose watched head was deleted held without
   * a call, and the engine counted the grant from that try's send time, which no call backs.
   */
  HEAD_GONE_UNBACKED
}
