package dev.dlock.redis.sim;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * One Redis holding one fair lock: the owner key with its TTL, the token counter, the waiter keys
 * with their leases, and the marks of pushed grants nobody took (the leases hash's '@<token>'
 * fields; kept here apart, without the hash's expiry). Each method is one script run as one atomic
 * step: fair-acquire.lua, fair-release.lua and the fair branch of renew-kinds.lua. Times are server
 * microseconds.
 */
final class SimFairServer {
  private final long waiterTimeoutMs;
  private final Channels channels;
  private final Set<Bug> bugs;
  private final SimQueue waiters = new SimQueue();
  private final SimKey key = new SimKey();
  private final Map<String, Long> marks = new HashMap<>();
  private long counter;

  SimFairServer(long waiterTimeoutMs, Channels channels, Set<Bug> bugs) {
    this.waiterTimeoutMs = waiterTimeoutMs;
    this.channels = channels;
    this.bugs = bugs;
  }

  /** The lock key. */
  SimKey key() {
    return key;
  }

  private long drawToken(long now) {
    counter = Math.max(counter + 1, now);
    return counter;
  }

  /** fair-acquire.lua: grants in queue order, or queues the owner ({@code willWait}). */
  SimServer.Reply acquire(String owner, long leaseMs, boolean willWait, long now) {
    SimLock l = key.get(now);
    if (l != null && l.holder().equals(owner)) { // a pushed grant or a lost answer: granted again
      marks.remove(owner);
      key.set(new SimLock('-', 0, owner, now + leaseMs * 1000));
      return new SimServer.Reply(true, drawToken(now), 0, "", 0);
    }
    String head = null;
    if (waiters.exists(now)) { // drop up to 16 lapsed waiters, then look at the head
      for (String gone : waiters.lapsed(now / 1000, now)) {
        waiters.remove(gone, now);
      }
      head = waiters.at(0, now);
    }
    if (l == null && (head == null || head.equals(owner))) {
      marks.remove(owner);
      key.set(new SimLock('-', 0, owner, now + leaseMs * 1000));
      if (head != null) {
        waiters.remove(owner, now);
      }
      return new SimServer.Reply(true, drawToken(now), 0, "", 0);
    }
    if (willWait) {
      waiters.add(owner, now, now / 1000 + waiterTimeoutMs, leaseMs, waiterTimeoutMs);
    }
    if (l != null) {
      return new SimServer.Reply(false, 0, (l.expiresAt() - now) / 1000, l.holder(), counter);
    }
    return new SimServer.Reply(false, 0, -1, "", counter);
  }

  /** fair-release.lua, mode 'release', or mode 'pass' with the pushed grant's {@code token} (else 0). */
  boolean release(String owner, long token, long now) {
    SimLock l = key.get(now);
    if (l == null || !l.holder().equals(owner) || token != 0 && marks.getOrDefault(owner, 0L) != token && !bugs.contains(Bug.PASS_IGNORES_MARK)) {
      return false;
    }
    key.del(now);
    marks.remove(owner);
    grantHead(now);
    return true;
  }

  /** fair-release.lua, mode 'cancel'. */
  boolean cancel(String owner, long now) {
    boolean wasHead = owner.equals(waiters.at(0, now));
    boolean left = waiters.lapses(owner, now) != 0;
    waiters.remove(owner, now);
    marks.remove(owner);
    SimLock l = key.get(now);
    boolean freed = l != null && l.holder().equals(owner);
    if (freed) {
      key.del(now);
    }
    if (freed || wasHead) {
      grantHead(now);
    }
    return freed || left;
  }

  /** fair-release.lua's grantHead: grant the oldest live waiter whose client listens, and push it. */
  private void grantHead(long now) {
    if (!waiters.exists(now) || key.get(now) != null) {
      return;
    }
    long nowMs = now / 1000;
    for (int tries = 0; tries < 8; tries++) { // walkQueue: 'stop' if granted, else 'drop'
      String head = waiters.at(0, now);
      if (head == null) {
        return;
      }
      // the prelude's offer: its place lapses after now, a token is drawn, and its client listens
      if (waiters.lapses(head, now) > nowMs) {
        long lease = waiters.lease(head, now);
        long ms = Math.min(waiterTimeoutMs, lease < 0 ? waiterTimeoutMs : lease);
        long token = drawToken(now);
        if (channels.publish(new Published(SimServer.clientOf(head), head, token))) {
          waiters.remove(head, now);
          key.set(new SimLock('-', 0, head, now + ms * 1000));
          marks.put(head, token);
          return;
        }
      }
      waiters.remove(head, now);
    }
  }

  /** renew-kinds.lua, kind 's': PEXPIRE if the owner still holds it. */
  boolean renew(String owner, long leaseMs, long now) {
    SimLock l = key.get(now);
    if (l == null || !l.holder().equals(owner)) {
      return false;
    }
    key.set(new SimLock('-', 0, owner, now + leaseMs * 1000));
    return true;
  }

  @Override
  public String toString() {
    return "fair lock=" + key + " counter=" + counter + " queue=" + waiters;
  }
}
