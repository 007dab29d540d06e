package dev.dlock.zookeeper;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The naive S11 lock, for the herd comparison only: everyone creates the same ephemeral node, and
 * every loser watches it and tries again when it goes. Why it is here: to count how many waiters
 * one release wakes when all watch one node. Each wake-up is counted in {@link #wakeUps}.
 */
final class NaiveLock {
  private final ZooKeeper zk;
  private final String path;
  private final AtomicInteger wakeUps;

  NaiveLock(ZooKeeper zk, String path, AtomicInteger wakeUps) {
    this.zk = zk;
    this.path = path;
    this.wakeUps = wakeUps;
  }

  /**
   * Blocks until this client created the node. {@code waiting} counts down once, when this
   * client first watches the node; {@code woken} once, at its first wake-up.
   */
  void lock(CountDownLatch waiting, CountDownLatch woken) throws KeeperException, InterruptedException {
    boolean first = true;
    while (true) {
      try {
        zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        return;
      } catch (KeeperException.NodeExistsException held) {
        CountDownLatch deleted = new CountDownLatch(1);
        if (zk.exists(path, e -> {
          wakeUps.incrementAndGet();
          deleted.countDown();
        }) == null) {
          continue;
        }
        if (first) {
          waiting.countDown();
        }
        deleted.await();
        if (first) {
          woken.countDown();
          first = false;
        }
      }
    }
  }

  void unlock() throws KeeperException, InterruptedException {
    zk.delete(path, -1);
  }
}
