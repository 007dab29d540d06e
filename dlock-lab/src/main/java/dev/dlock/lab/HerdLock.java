package dev.dlock.lab;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * S11: everyone creates one ephemeral node; the one create that succeeds holds the lock, and every
 * other contender watches the node (an exists watch) and tries again when it changes. Release
 * deletes the node. Why it is here: every release wakes every waiter (the herd); each watch that
 * fires while this client waits calls {@code onWake}. Release reads the node's owner and then
 * deletes it unconditionally, as the articles do, so a holder whose session expired frees the
 * node of the next holder and says whose it was.
 */
final class HerdLock extends ZkScheme {
  /** Runs once this client watches the node; tests wait for it before releasing. */
  Runnable watching = () -> {};

  HerdLock(String url, String process, Runnable onWake) throws InterruptedException {
    super(url, process, onWake);
  }

  @Override
  public Held acquire(String lock, Duration lease, Duration wait) throws Exception {
    long deadline = System.nanoTime() + wait.toNanos();
    String path = "/lab/herd/" + lock;
    byte[] value = nextValue();
    while (true) {
      try {
        zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, value);
        return new PlainHeld(() -> release(path));
      } catch (KeeperException.NodeExistsException taken) {
        ChangeWatch watch = watch();
        if (zk.checkExists().usingWatcher(watch).forPath(path) == null) {
          continue;
        }
        watching.run();
        if (!watch.await(deadline)) {
          return null;
        }
      }
    }
  }

  private String release(String path) throws Exception {
    try {
      String owner = new String(zk.getData().forPath(path), StandardCharsets.UTF_8);
      zk.delete().forPath(path);
      return RedisScheme.owner(owner);
    } catch (KeeperException.NoNodeException gone) {
      return "";
    }
  }
}
