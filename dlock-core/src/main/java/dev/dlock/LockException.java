package dev.dlock;

import org.jspecify.annotations.Nullable;

/**
 * The root of every exception dlock throws for a lock operation. Unchecked; the cause, if any, is
 * always chained. Argument errors are plain {@link IllegalArgumentException} and
 * {@link NullPointerException}; misuse of the {@link java.util.concurrent.locks.Lock} view is
 * {@link IllegalMonitorStateException}, as with {@code ReentrantLock}.
 */
public class LockException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** With a message naming the lock. */
  public LockException(String message) {
    super(message);
  }

  /** With a message naming the lock, and the cause. */
  public LockException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
