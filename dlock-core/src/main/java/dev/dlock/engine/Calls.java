package dev.dlock.engine;

import dev.dlock.LockException;
import dev.dlock.spi.LockBackend;
import java.util.function.Supplier;

/**
 * The one wrapper around backend calls made for a caller: an unexpected failure becomes a
 * {@link LockException} naming the backend, the lock, the client and the cause, while the caller's
 * own mistakes and dlock's exceptions pass unchanged. Shared by the acquire, the server-side wait,
 * the release and the hand-off, so each reports a failure alike.
 */
final class Calls {
  private final LockBackend backend;
  private final String clientId;

  Calls(LockBackend backend, String clientId) {
    this.backend = backend;
    this.clientId = clientId;
  }

  /** A backend call that may block interruptibly, such as a wait at the server. */
  interface Interruptible<T> {
    T get() throws InterruptedException;
  }

  <T> T call(String name, String what, Supplier<T> op) {
    try {
      return op.get();
    } catch (RuntimeException e) {
      throw translate(name, what, e);
    }
  }

  <T> T callInterruptibly(String name, String what, Interruptible<T> op) throws InterruptedException {
    try {
      return op.get();
    } catch (RuntimeException e) {
      throw translate(name, what, e);
    }
  }

  private RuntimeException translate(String name, String what, RuntimeException e) {
    if (e instanceof LockException || e instanceof UnsupportedOperationException
        || e instanceof IllegalArgumentException) {
      return e; // the caller's mistake, such as a semaphore's permits other clients disagree with
    }
    return new LockException(String.format("backend %s failed to %s lock '%s' for client %s: %s",
        backend.describe(), what, name, clientId, e), e);
  }
}
