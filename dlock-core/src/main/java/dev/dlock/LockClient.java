package dev.dlock;

import dev.dlock.spi.LockInfo;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A connection to one lock backend, and the factory of its locks.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.connect("mem:")) {
 *   DistributedLock lock = client.lock("nightly-report");
 *   try (Lease lease = lock.acquire(Duration.ofSeconds(10))) {
 *     runReport(lease.token());
 *   }
 * }
 * }</pre>
 *
 * <p>Backends are found by URL scheme through {@link java.util.ServiceLoader}
 * ({@link dev.dlock.spi.LockBackendProvider}); {@code mem:} is built in. Closing the client
 * releases every lock it holds, fails its waiting threads and stops its threads. Thread-safe.
 */
public interface LockClient extends AutoCloseable {

  /**
   * Connects with default settings.
   *
   * @param url such as {@code mem:}, {@code mem:name}; other schemes come with their backends
   * @throws IllegalArgumentException if no backend handles the URL's scheme
   * @throws BackendUnavailableException if the server cannot be reached
   */
  static LockClient connect(String url) {
    return builder().url(url).build();
  }

  /** A builder for a client with non-default settings. */
  static LockClientBuilder builder() {
    return new LockClientBuilder();
  }

  /**
   * A lock whose lease is renewed by the client's watchdog every {@code leaseTime / 3} while held,
   * so it outlives any critical section yet expires a lease after the holder dies. The holder is
   * told it lost the lease at the send time of its last successful renewal plus the lease, less a
   * margin of 1% and 20 ms, before the server can grant it to anyone else. Where the server's lease
   * is a session (ZooKeeper), the session timeout takes the lease's place. Held through the
   * {@code Lock} methods by a thread that ends without unlocking it, it is released at the next
   * renewal ({@link LockListener#abandoned}).
   *
   * @param name 1 to {@code maxNameLength} chars of valid Unicode (no lone surrogates), as the
   *     backend allows
   */
  DistributedLock lock(String name);

  /**
   * A lock whose grants are never renewed and simply expire after {@code leaseTime}, for work with
   * a known bound. If the work outlasts the lease the lease is lost, its signal fires (at the lease
   * less a margin of 1% and 20 ms), and the client releases the grant at the server, which is what
   * frees it on a server that expires nothing by itself (ZooKeeper). Where the server's lease is a
   * session, the session is still renewed meanwhile, and the lease is lost early if it ends.
   */
  DistributedLock lock(String name, Duration leaseTime);

  /**
   * A watchdog-renewed lock like {@link #lock(String)} whose waiters, across all clients, are
   * granted in the order they first asked.
   *
   * @throws UnsupportedOperationException if the backend has no fair locks
   */
  DistributedLock fairLock(String name);

  /**
   * A watchdog-renewed read-write lock on {@code name}; see {@link DistributedReadWriteLock}.
   *
   * @throws UnsupportedOperationException if the backend has no read-write locks
   */
  DistributedReadWriteLock readWriteLock(String name);

  /**
   * A semaphore of {@code permits} watchdog-renewed leases on {@code name}; see
   * {@link DistributedSemaphore}.
   *
   * @throws IllegalArgumentException if {@code permits} is not positive
   * @throws UnsupportedOperationException if the backend has no semaphores
   */
  DistributedSemaphore semaphore(String name, int permits);

  /**
   * Stands for election on {@code name} at once: a thread of the latch waits for the lock with the
   * watchdog lease of {@link #lock(String)} and calls {@code listener} as leadership comes and goes.
   * Close the latch to withdraw; closing the client also ends it.
   *
   * @param name     the lock behind the election, as for {@link #lock(String)}
   * @param listener told of election, loss and resignation
   */
  default LeaderLatch leaderLatch(String name, LeaderListener listener) {
    return dev.dlock.engine.Election.start(lock(name), name, listener, Ticker.system());
  }

  /**
   * Who holds {@code name} now, by the server's account; empty if nobody does.
   *
   * @throws UnsupportedOperationException if the backend cannot inspect locks
   */
  Optional<LockInfo> inspect(String name);

  /**
   * Every lock held now, by the server's account, ordered by name.
   *
   * @throws UnsupportedOperationException if the backend cannot list locks
   */
  List<LockInfo> inspectAll();

  /**
   * The locks this client holds now, by its own account, ordered by name (then kind and token):
   * one entry per grant, so a semaphore shows each permit it holds. A lock whose lease was lost,
   * or that was released, is left out. Asks nothing of the server; empty once the client is
   * closed.
   */
  List<HeldLock> held();

  /** This client's unique id, the prefix of its owner strings at the server. */
  String id();

  /** Releases everything this client holds, fails its waiters and stops its threads. Idempotent. */
  @Override
  void close();
}
