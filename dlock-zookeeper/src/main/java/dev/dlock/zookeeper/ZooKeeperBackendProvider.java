package dev.dlock.zookeeper;

import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockBackendProvider;
import java.util.Set;
import org.apache.curator.utils.ZookeeperFactory;
import org.jspecify.annotations.Nullable;

/**
 * Opens {@code zookeeper://[user:pass@]host:port[,host:port...][/chroot][?sessionTimeout=10s&connectTimeout=2s]}
 * URLs: herd-free exclusive and fair locks on ephemeral sequential nodes (scheme S12), read-write
 * locks (S13, improved: no watch on the children list) and semaphores on the same mechanism, whose
 * fencing token comes from the node's creation zxid and whose lease is the ZooKeeper session.
 *
 * <ul>
 *   <li>{@code user:pass} adds digest credentials; nodes are then created with the creator-only
 *       ACL, so clients without the same credentials can neither take nor delete them. The
 *       password is never shown: messages, {@code toString()} and logs show {@code user:***@}.</li>
 *   <li>{@code /chroot} puts every node under that path (created as container nodes if
 *       missing); locks live in {@code <chroot>/dlock/locks/<name>}, fair locks in
 *       {@code .../fair/<name>}, read-write locks in {@code .../rw/<name>} and semaphores in
 *       {@code .../sem/<name>} (whose data is the permit count).</li>
 *   <li>{@code sessionTimeout} (default 10 s) is asked of the server, which may grant another
 *       within its limits; the negotiated timeout is every grant's lease and how long a crashed
 *       holder keeps its locks. {@code connectTimeout} (default 2 s; {@code connectionTimeout} is
 *       its alias) is how long the connect at open, and any later call, may wait for a server; a
 *       caller's shorter deadline shortens it. Durations are milliseconds, or a number with
 *       {@code ms}, {@code s}, {@code m} or {@code h}, between 100 ms and 1 hour; a malformed one
 *       is refused before any connection, naming the parameter and the value.</li>
 * </ul>
 *
 * <p><b>The lease.</b> A grant lasts as long as its node, which lasts as long as the session. The
 * client counts each hold valid for the negotiated session timeout from the send time of its last
 * successful renewal (one sync per batch, as the watch on each node reports its deletion), watches each
 * held node, and reports a hold lost at once when its node is deleted by anyone else.
 *
 * <p><b>Fixed leases.</b> {@code lock(name, leaseTime)} on ZooKeeper ends at its deadline by a
 * release from the client, which deletes the node. If the client is cut off from the server then,
 * the lock is freed when the session expires, at most a session timeout after the client was last
 * heard from; the holder is told first, at the deadline or earlier.
 */
public final class ZooKeeperBackendProvider implements LockBackendProvider {

  /** For ServiceLoader. */
  public ZooKeeperBackendProvider() {}

  @Override
  public Set<String> schemes() {
    return Set.of("zookeeper");
  }

  @Override
  public LockBackend open(String url) {
    return open(url, null);
  }

  /** With a ZooKeeper factory of the test's own, for counting calls. */
  static ZooKeeperBackend open(String url, @Nullable ZookeeperFactory factory) {
    return new ZooKeeperBackend(ZkSession.open(ZkUrl.parse(url), factory));
  }
}
