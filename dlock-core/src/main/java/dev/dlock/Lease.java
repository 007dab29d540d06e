package dev.dlock;

import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One hold on a distributed lock, owned by this handle rather than by a thread: it may be closed
 * from any thread, including another virtual thread, which suits async code.
 *
 * <pre>{@code
 * try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
 *   lease.onLost(e -> log.warn("stop writing", e));
 *   store.write(data, lease.token());   // the store rejects tokens older than the last it saw
 * }
 * }</pre>
 */
public interface Lease extends AutoCloseable {

  /** The lock name. */
  String name();

  /**
   * The fencing token: strictly greater for every new grant of this lock name than for any earlier
   * grant, and the same on reentry. Pass it to the resource you protect, so it can reject a write
   * from a holder whose lease already ran out. Shared grants (readers, permits) held at the same
   * time may have their tokens in either order; each is still greater than that of every grant
   * it excludes that came before it.
   */
  long token();

  /**
   * When the lease runs out unless renewed, in nanoseconds on the client's {@link Ticker}: the send
   * time of the last successful grant or renewal plus the lease, less a margin for clock drift (1%
   * of the lease and 20 ms), so it comes before the server could let the lock go.
   */
  long validUntilNanos();

  /** The time left before the lease runs out unless renewed; zero once it has. */
  Duration remaining();

  /** True while the lease is held and has not run out. */
  boolean isValid();

  /**
   * Throws unless the lease is still valid; call it before committing work done under the lock.
   *
   * @throws LeaseLostException naming the lock, the owner and why the lease was lost
   */
  void ensureValid();

  /**
   * Completes, once, with the reason when the client learns that the lease is gone while held:
   * renewal failed or came back "not yours", the session expired, or the lease ran out. It never
   * completes for a lease that was released normally. Dependent actions run on the thread that
   * detects the loss, often the client's renewal thread: keep them short, or use the async forms.
   */
  CompletionStage<LeaseLostException> lost();

  /** Runs {@code callback} when the lease is lost; see {@link #lost()}. */
  default void onLost(Consumer<? super LeaseLostException> callback) {
    lost().thenAccept(callback);
  }

  /**
   * Releases this hold. Idempotent: the second and later calls do nothing. With reentrant holds,
   * the lock is released at the server when the last hold is closed.
   *
   * @throws LeaseLostException if the lease had been lost before it was released, so the caller
   *     learns that its critical section was not protected. Local state is cleaned up either way.
   * @throws BackendUnavailableException if the server could not be told; the lease then runs out
   *     on the server by itself
   */
  @Override
  void close();
}
