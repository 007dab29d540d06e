package dev.dlock.jdbc;

import dev.dlock.LockException;

/**
 * An {@link OptimisticUpdate} gave up: every attempt lost the race to another writer, up to the
 * configured bound. Retrying later, or a lock, is the caller's choice.
 */
public class OptimisticConflictException extends LockException {
  private static final long serialVersionUID = 1L;

  private final transient Object key;
  private final int conflicts;

  /**
   * @param message   the message, naming the table, the key and the number of conflicts
   * @param key       the key of the row that could not be updated
   * @param conflicts how many updates found the row changed since it was read
   */
  public OptimisticConflictException(String message, Object key, int conflicts) {
    super(message);
    this.key = key;
    this.conflicts = conflicts;
  }

  /** The key of the row that could not be updated. */
  public Object key() {
    return key;
  }

  /** How many updates found the row changed since it was read; the bound that was reached. */
  public int conflicts() {
    return conflicts;
  }
}
