package dev.dlock;

import org.jspecify.annotations.Nullable;

/**
 * A lease is gone while its holder still thought it held the lock: renewal failed or came back
 * "not yours", the session expired, or the lease ran out without renewal. Work done under the lease
 * since it was lost was not protected.
 */
public class LeaseLostException extends LockException {
  private static final long serialVersionUID = 1L;

  /** With a message naming the lock. */
  public LeaseLostException(String message) {
    super(message);
  }

  /** With a message naming the lock, and the cause. */
  public LeaseLostException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
