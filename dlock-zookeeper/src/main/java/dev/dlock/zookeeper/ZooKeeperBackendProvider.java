package dev.dlock.zookeeper;

import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockBackendProvider;
import java.util.Set;
import org.apache.curator.utils.ZookeeperFactory;

/**
 * Opens {@code zookeeper://[user:pass@]host:port[,host:port...][/chroot][?sessionTimeout=10s&connectionTimeout=5s]}
 * URLs: herd-free exclusive and fair locks on ephemeral sequential nodes (scheme S12), read-write
 * locks (S13, improved: no watch on the children list) and semaphores on the same mechanism, whose
 * fencing token comes from the node's creation zxid and whose lease is the ZooKeeper session.
 *
 * <ul>
 *   <li>{@code user:pass} adds digest credentials; nodes are then created with the creator-only
 *       ACL, so clients without the same credentials can neither take nor delete them.</li>
 *   <li>{@code /chroot} puts every node under that path (created as container nodes if
 *       missing); locks live in {@code <chroot>/dlock/locks/<name>}, fair locks in
 *       {@code .../fair/<name>}, read-write locks in {@code .../rw/<name>} and semaphores in
 *       {@code .../sem/<name>} (whose data is the permit count).</li>
 *   <li>{@code sessionTimeout} (default 10 s) is how long a crashed holder keeps its locks;
 *       {@code connectionTimeout} (default 5 s) bounds every wait for a connection. Durations are
 *       milliseconds, or a number with {@code ms}, {@code s} or {@code m}.</li>
 * </ul>
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
  static ZooKeeperBackend open(String url, ZookeeperFactory factory) {
    return new ZooKeeperBackend(ZkSession.open(ZkUrl.parse(url), factory));
  }
}
