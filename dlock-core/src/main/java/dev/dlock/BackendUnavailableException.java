package dev.dlock;

import org.jspecify.annotations.Nullable;

/** The lock server could not be reached or failed to answer; the cause says why. */
public class BackendUnavailableException extends LockException {
  private static final long serialVersionUID = 1L;

  /** With a message naming the lock, and the cause, if one is known. */
  public BackendUnavailableException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  /** With a message naming the lock. */
  public BackendUnavailableException(String message) {
    super(message);
  }
}
