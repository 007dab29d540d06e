package dev.dlock.redis.sim;

/**
 * The lock key of one simulated Redis: its value, which expires on the virtual clock, and since
 * when the key has been absent. The exclusive and the fair server read their key through here, so
 * a key lapses the same way for both and the stranded-waiter check reads both alike.
 */
final class SimKey {
  private SimLock lock;
  private long freedAt;

  /** GET lock, after its PX ran out or not. */
  SimLock get(long now) {
    if (lock != null && now >= lock.expiresAt()) {
      freedAt = lock.expiresAt();
      lock = null;
    }
    return lock;
  }

  /** Since when the key has been absent, or -1 while it exists. */
  long freeSince(long now) {
    return get(now) == null ? freedAt : -1;
  }

  /** SET, or PEXPIRE: the key holds {@code value} until its expiry. */
  void set(SimLock value) {
    lock = value;
  }

  /** DEL, at {@code now}. */
  void del(long now) {
    lock = null;
    freedAt = now;
  }

  @Override
  public String toString() {
    return String.valueOf(lock);
  }
}
