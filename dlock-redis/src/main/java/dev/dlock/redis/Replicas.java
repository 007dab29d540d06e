package dev.dlock.redis;

import dev.dlock.BackendUnavailableException;
import dev.dlock.internal.CallTimeout;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fail-closed replica policy of one Redis backend ({@code waitReplicas=k}). Why apart from
 * the backend: grants of every kind and renewal rounds ask the same question (did k replicas get
 * this connection's writes in time?), and each must answer it in the same fail-closed way; with
 * the policy off, nothing here sends a command.
 */
final class Replicas {
  private static final Logger log = LoggerFactory.getLogger(Replicas.class);

  private final RedisUrl.Replication policy;
  private final Calls calls;

  Replicas(RedisUrl.Replication policy, Calls calls) {
    this.policy = policy;
    this.calls = calls;
  }

  boolean on() {
    return policy.on();
  }

  /**
   * With the policy on, waits until enough replicas have the grant of {@code name} just made, or
   * else undoes it and fails: a grant a failover could forget is no grant.
   */
  void confirmGrant(String name, byte[] key, Runnable undo) {
    if (policy.on() && !acknowledged(key)) {
      try {
        undo.run();
      } catch (RuntimeException e) {
        log.debug("dlock: could not release lock '{}' after too few replicas acknowledged it", name, e);
      }
      throw new BackendUnavailableException(String.format(
          "redis %s: fewer than %d replica(s) acknowledged the grant of lock '%s' within %s,"
              + " so it was released",
          calls.server(), policy.replicas(), name, policy.timeout()));
    }
  }

  /**
   * Waits for the replicas to acknowledge the writes so far of the connection that wrote
   * {@code key}, which include a grant or renewal and its token. False if too few did in time.
   * WAIT blocks that connection at the server, so it may not outlast the caller's deadline
   * either: it gets at most half the time left, the other half being for the round trip.
   */
  boolean acknowledged(byte[] key) {
    Duration left = CallTimeout.bound(policy.timeout().plus(calls.timeout()));
    Duration wait = left.dividedBy(2).compareTo(policy.timeout()) < 0 ? left.dividedBy(2) : policy.timeout();
    long acked = calls.command("wait for " + policy.replicas() + " replica(s)",
        c -> c.waitForReplicas(key, policy.replicas(), wait));
    return acked >= policy.replicas();
  }

  /** The failure of a renewal round in which {@code leases} extensions went unacknowledged. */
  BackendUnavailableException renewalUnacknowledged(int leases) {
    return new BackendUnavailableException(String.format(
        "redis %s: fewer than %d replica(s) acknowledged the renewal of %d lease(s) within %s",
        calls.server(), policy.replicas(), leases, policy.timeout()));
  }
}
