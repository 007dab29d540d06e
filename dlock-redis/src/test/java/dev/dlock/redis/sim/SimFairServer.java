package dev.dlock.redis.sim;

/**
 * One Redis holding one fair lock: the owner key with its TTL, the token counter, the waiter keys
 * (no leases). Each method is one script run as one atomic step: fair-acquire.lua,
 * fair-release.lua and the fair branch of renew-kinds.lua. Times are server microseconds.
 */
final class SimFairServer {
  private final long waiterTimeoutMs;
  private final Channels channels;
  private final SimQueue waiters = new SimQueue();
  private final SimKey key = new SimKey();
  private long counter;

  SimFairServer(long waiterTimeoutMs, Channels channels) {
    this.waiterTimeoutMs = waiterTimeoutMs;
    this.channels = channels;
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
    if (l != null && l.holder().equals(owner)) { // a retry whose answer was lost: granted again
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
      key.set(new SimLock('-', 0, owner, now + leaseMs * 1000));
      if (head != null) {
        waiters.remove(owner, now);
      }
      return new SimServer.Reply(true, drawToken(now), 0, "", 0);
    }
    if (willWait) {
      waiters.add(owner, now, now / 1000 + waiterTimeoutMs, 0, waiterTimeoutMs);
    }
    if (l != null) {
      return new SimServer.Reply(false, 0, (l.expiresAt() - now) / 1000, l.holder(), counter);
    }
    return new SimServer.Reply(false, 0, -1, "", counter);
  }

  /** fair-release.lua, mode 'release'. */
  boolean release(String owner, long now) {
    SimLock l = key.get(now);
    if (l == null || !l.holder().equals(owner)) {
      return false;
    }
    key.del(now);
    wakeHead(now);
    return true;
  }

  /** fair-release.lua, mode 'cancel'. */
  boolean cancel(String owner, long now) {
    boolean wasHead = owner.equals(waiters.at(0, now));
    boolean left = waiters.lapses(owner, now) != 0;
    waiters.remove(owner, now);
    SimLock l = key.get(now);
    boolean freed = l != null && l.holder().equals(owner);
    if (freed) {
      key.del(now);
    }
    if (freed || wasHead) {
      wakeHead(now);
    }
    return freed || left;
  }

  /** fair-release.lua's wakeHead: tell the oldest live waiter whose client listens. */
  private void wakeHead(long now) {
    if (!waiters.exists(now) || key.get(now) != null) {
      return;
    }
    long nowMs = now / 1000;
    for (int tries = 0; tries < 8; tries++) { // walkQueue: 'stop' if told, else 'drop'
      String head = waiters.at(0, now);
      if (head == null) {
        return;
      }
      // the prelude's tell: its place lapses after now and its client listens
      if (waiters.lapses(head, now) > nowMs
          && channels.publish(new Published(SimServer.clientOf(head), head, 0))) {
        return;
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
