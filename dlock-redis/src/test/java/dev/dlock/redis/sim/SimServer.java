package dev.dlock.redis.sim;

import java.util.Set;

/**
 * One Redis holding one exclusive lock: the lock key with its TTL on the virtual clock, the token
 * counter, the waiter keys. Each method is one of the scripts, run as one atomic step as Redis
 * runs a script; the comments name the script and mirror its branches. Times are server
 * microseconds ({@code now}), as the prelude's micros(); milliseconds are {@code now / 1000}.
 */
final class SimServer {
  /**
   * An acquire script's reply: the token, or {0, ms left, holder, counter}: the token counter at a
   * refusal, by which the client tells a late pushed grant from a fresh one (see {@link SimClient}).
   */
  record Reply(boolean granted, long token, long leftMs, String holder, long counter) {}

  /** The tokens drawToken leaves free after each, for the client's local hand-offs (prelude SPARE). */
  static final int SPARE = 15;

  private final long waiterTimeoutMs;
  private final Channels channels;
  private final Set<Bug> bugs;
  private final SimQueue waiters = new SimQueue();
  private final SimKey key = new SimKey();
  private long counter;

  /** @param counter the token counter's value at the start (0: none yet) */
  SimServer(long waiterTimeoutMs, Channels channels, Set<Bug> bugs, long counter) {
    this.waiterTimeoutMs = waiterTimeoutMs;
    this.channels = channels;
    this.bugs = bugs;
    this.counter = counter;
  }

  /** The lock key. */
  SimKey key() {
    return key;
  }

  SimQueue waiters() {
    return waiters;
  }

  private void set(char state, long ms, String holder, long now) {
    key.set(new SimLock(state, ms, holder, now + ms * 1000));
  }

  /** The prelude's drawToken for an exclusive lock: max(counter + 1 + 15 spare, server micros). */
  private long drawToken(long now) {
    counter = Math.max(counter + 1 + (bugs.contains(Bug.NO_SPARE_TOKENS) ? 0 : SPARE), now);
    return counter;
  }

  /** acquire.lua; mode 0 one-shot, 1 will wait, 2 will wait and may be queued. */
  Reply acquire(String owner, long leaseMs, int mode, long now) {
    SimLock l = key.get(now);
    if (l == null) { // SET NX PX succeeded: the uncontended path
      set('-', leaseMs, owner, now);
      if (mode == 2) {
        waiters.remove(owner, now);
        if (waiters.exists(now)) {
          set('+', leaseMs, owner, now);
        }
      }
      return new Reply(true, drawToken(now), 0, "", 0);
    }
    if (l.holder().equals(owner)) {
      if (l.state() == '@') { // a pushed grant this retry overtook: taken for a whole lease
        waiters.remove(owner, now);
        set(waiters.exists(now) ? '+' : '-', leaseMs, owner, now);
        return new Reply(true, counter, 0, "", 0);
      }
      // a retry of a granted attempt whose answer was lost: PEXPIRE, the same grant
      key.set(new SimLock(l.state(), l.ms(), owner, now + leaseMs * 1000));
      return new Reply(true, counter, 0, "", 0);
    }
    long left = (l.expiresAt() - now) / 1000; // PTTL
    if (mode != 0) {
      waiters.add(owner, now, now / 1000 + waiterTimeoutMs, leaseMs, waiterTimeoutMs);
      if (l.state() == '-') { // SET '+' KEEPTTL
        key.set(new SimLock('+', l.ms(), l.holder(), l.expiresAt()));
      }
    }
    return new Reply(false, 0, left, l.holder(), counter);
  }

  /** release.lua, mode 'release': GET, leave another owner's lock alone, DEL, hand over if '+'/'@'. */
  boolean release(String owner, long now) {
    SimLock l = key.get(now);
    if (l == null || !l.holder().equals(owner)) {
      return false;
    }
    key.del(now);
    if (l.state() != '-') {
      handOver(now);
    }
    return true;
  }

  /** release.lua, mode 'cancel' ({@code pass} false) or 'pass' (only a grant still marked '@'). */
  boolean cancel(String owner, boolean pass, long now) {
    waiters.remove(owner, now);
    SimLock l = key.get(now);
    if (l == null || !l.holder().equals(owner) || pass && l.state() != '@') {
      return false;
    }
    key.del(now);
    if (l.state() != '-') {
      handOver(now);
    }
    return true;
  }

  /** release.lua's handOver: drop lapsed waiters, then grant the oldest one whose client listens. */
  private void handOver(long now) {
    long nowMs = now / 1000;
    for (String gone : waiters.lapsed(nowMs, now)) {
      waiters.remove(gone, now);
    }
    int at = 0;
    for (int tries = 0; tries < 8; tries++) { // the prelude's walkQueue, 8 tries
      String head = waiters.at(at, now);
      if (head == null) {
        return;
      }
      long recorded = waiters.lease(head, now);
      long ms = Math.min(waiterTimeoutMs, recorded < 0 ? waiterTimeoutMs : recorded);
      long token = drawToken(now);
      boolean heard = channels.publish(new Published(clientOf(head), head, token));
      if (heard) {
        waiters.remove(head, now);
        set('@', ms, head, now);
        return;
      }
      waiters.remove(head, now); // 'drop': nobody listens for it
    }
  }

  /** renew.lua for one grant: true if renewed, false if lost. */
  boolean renew(String owner, long leaseMs, long now) {
    SimLock l = key.get(now);
    if (l == null || !l.holder().equals(owner)) {
      return bugs.contains(Bug.RENEW_WITHOUT_OWNER);
    }
    // '@' renewed by its taker: held now ('+'), for a whole lease; else PEXPIRE
    boolean pushed = l.state() == '@';
    key.set(new SimLock(pushed ? '+' : l.state(), pushed ? leaseMs : l.ms(), owner, now + leaseMs * 1000));
    return true;
  }

  static String clientOf(String owner) {
    return owner.substring(0, owner.lastIndexOf(':'));
  }

  @Override
  public String toString() {
    return "lock=" + key + " counter=" + counter + " queue=" + waiters;
  }
}
