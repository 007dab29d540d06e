package dev.dlock;

/**
 * The backend refused a release or renewal because the lock is no longer held by this owner: it
 * expired or another owner holds it now. A special case of a lost lease.
 */
public class NotOwnerException extends LeaseLostException {
  private static final long serialVersionUID = 1L;

  /** With a message naming the lock. */
  public NotOwnerException(String message) {
    super(message);
  }
}
