package dev.dlock.redis.sim;

/**
 * A deliberate break of the model, so a test can show that the checks catch it: without these, a
 * simulation that passed every seed could be one that checks nothing.
 */
enum Bug {
  /** drawToken leaves no tokens spare, so a local hand-off's token can be drawn again. */
  NO_SPARE_TOKENS,
  /** The client counts a pushed grant valid from its arrival, not from its last try's send time. */
  PUSH_VALID_FROM_ARRIVAL,
  /** The waiter never re-polls: it sleeps until a notification, so a lost one strands it. */
  NO_REPOLL,
  /** renew.lua answers "renewed" for an owner that no longer holds the lock. */
  RENEW_WITHOUT_OWNER,
  /**
   * takePushed ignores the token counter of the owner's last refusal, and takes a pushed grant
   * whose message came after its next try was refused (the client before the fix of seed 73).
   */
  STALE_PUSH_TAKEN,
  /** fair-release.lua's 'pass' frees the owner's grant without checking that it is still untaken. */
  PASS_IGNORES_MARK
}
