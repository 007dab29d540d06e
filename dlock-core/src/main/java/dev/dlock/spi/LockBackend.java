package dev.dlock.spi;

import java.time.Duration;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The primitive operations a lock backend implements. Everything else, reentrancy, the local wait
 * queue, deadlines and interrupts, the renewal scheduler, lease validity, loss signals and events,
 * lives once in dlock-core's engine, so a backend stays a few hundred lines.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Owners.</b> The engine passes an owner string that is unique per grant. It has the form
 *       {@code clientId + ':' + sequence}; the client id ({@link BackendContext#clientId()}) contains
 *       no {@code ':'}, so a backend may route per-client notifications by the part before the last
 *       colon.</li>
 *   <li><b>Tokens.</b> Every grant carries a fencing token strictly greater than that of every
 *       earlier grant of the same name. Grants that may be held together (READ, PERMIT) need only
 *       be ordered against the grants they exclude: two readers granted at about the same time
 *       may get their tokens in either order. Reentry never reaches the backend, so the backend
 *       never sees it.</li>
 *   <li><b>Time.</b> The server decides expiry by its own clock (Redis TTL, database {@code now()},
 *       a ZooKeeper session). A backend never decides expiry with the client's wall clock.</li>
 *   <li><b>Errors.</b> An I/O failure or an unreachable server throws
 *       {@link dev.dlock.BackendUnavailableException} with the cause chained. An error is never turned
 *       into "held" or "not acquired".</li>
 *   <li><b>Threads.</b> Every method may be called concurrently from many threads. The engine lets
 *       at most one thread per client compete for a given name and kind at a time.</li>
 *   <li><b>Kinds.</b> Every grant comes through {@link #tryAcquire(LockRequest)}, for the kinds
 *       {@link #kinds()} names. Each kind of one name is its own lock, except that READ and WRITE
 *       are the two sides of one read-write lock. {@link Grant#kind()} tells renew and release
 *       which.</li>
 *   <li><b>Waiting.</b> A {@code tryAcquire} with {@code willWait} set that answers "held" may
 *       register the owner as a waiter. The engine then calls {@link #tryAcquire} again for the
 *       same owner after a {@link BackendContext#released} notification or after
 *       {@link Attempt#retryAfter()}, whichever comes first, until it is granted or it gives up by
 *       calling {@link #cancel}. A backend with no notifications simply answers a poll interval.</li>
 *   <li><b>Capabilities.</b> Optional abilities are interfaces a backend implements beside this
 *       one, and the engine uses them when it finds them: {@link HandsOff} passes an exclusive
 *       grant between two threads of the client without freeing it; {@link SpareTokens} lets the
 *       engine pass it with no call at all; {@link WaitsAtServer} lets
 *       the server queue exclusive waiters itself.</li>
 * </ul>
 */
public interface LockBackend extends AutoCloseable {

  /**
   * Called once by the engine before any other method.
   *
   * @param context the client's identity, clock and notification sinks
   */
  void start(BackendContext context);

  /**
   * The kinds of lock this backend grants through {@link #tryAcquire(LockRequest)}. The default is
   * {@link LockKind#EXCLUSIVE} alone; the engine refuses the others before any call. The engine may
   * call it before {@link #start}.
   */
  default Set<LockKind> kinds() {
    return EnumSet.of(LockKind.EXCLUSIVE);
  }

  /**
   * Tries once to grant a lock of any kind in {@link #kinds()}; never waits for the lock to become
   * free. With {@code willWait} unset this is a one-shot try, which must leave nothing behind. A
   * request with {@code willWait} that is refused may queue the owner, so that the backend can
   * notify it on release. FAIR, WRITE and PERMIT requests are granted in queue order (a READ
   * passes only the readers queued ahead of it, so a queued writer holds back later readers); a
   * READ naming {@link LockRequest#writer()} is a downgrade and is granted beside that writer. A
   * release or a cancel notifies the clients whose waiters may now be granted: the head of the
   * queue, or every reader queued before the next writer, or as many permit waiters as permits
   * came free.
   *
   * @param request the name, kind, owner, lease and whether the caller will wait
   * @return a grant with its token, or "held" with a retry hint
   */
  Attempt tryAcquire(LockRequest request);

  /**
   * Extends every given grant to {@code leaseTime} from now, in as few server calls as the backend
   * allows (one where it can). Each extension is owner- and token-checked.
   *
   * @return the grants that are no longer held by their owner (expired, taken over, deleted);
   *     empty when all were extended
   */
  Set<Grant> renew(Collection<Grant> grants, Duration leaseTime);

  /**
   * Releases a grant if, and only if, it is still held by its owner with its token, and notifies
   * the waiter (or, after a writer, the waiting readers) that may now be granted.
   *
   * @return true if released; false if the grant was no longer held by that owner
   */
  boolean release(Grant grant);

  /**
   * The engine gives up waiting for {@code name} as {@code owner} (timeout, interrupt, close).
   * Removes any queue position, and releases any grant the backend may have made to that owner in
   * the meantime. The default does nothing, for backends that keep no waiter state.
   */
  default void cancel(String name, String owner) {}

  /**
   * The current grant of {@code name} by the server's account, or empty if it is free. The default
   * throws, for backends that cannot tell.
   */
  default Optional<LockInfo> inspect(String name) {
    throw new UnsupportedOperationException(describe() + " cannot inspect locks");
  }

  /** Every lock held now, ordered by name. The default throws, for backends that cannot list. */
  default List<LockInfo> inspectAll() {
    throw new UnsupportedOperationException(describe() + " cannot list locks");
  }

  /**
   * The lease the server gives every grant whatever lease is asked, for a backend whose grants live
   * exactly as long as the client's session (ZooKeeper: the negotiated session timeout). The engine
   * then counts every hold valid until the send time of its last successful {@link #renew} plus this
   * (less a margin for clock drift), renews every hold, fixed-lease ones included, every third of
   * it, and ends a fixed lease at its own deadline by releasing it. Empty by default: the server
   * applies the lease asked for. The engine calls it once, after {@link #start}.
   */
  default Optional<Duration> sessionLease() {
    return Optional.empty();
  }

  /** The longest lock name this backend stores, in chars; the engine rejects longer names. */
  default int maxNameLength() {
    return 256;
  }

  /** A one-line description for messages, such as the URL without its password. */
  String describe();

  /** Closes connections and threads. Releases nothing: the engine releases what it holds first. */
  @Override
  void close();
}
