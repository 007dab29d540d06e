package dev.dlock;

/** The wait for a lock ran out before it was granted. */
public class LockTimeoutException extends LockException {
  private static final long serialVersionUID = 1L;

  /** With a message naming the lock. */
  public LockTimeoutException(String message) {
    super(message);
  }
}
