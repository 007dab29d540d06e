package dev.dlock.lab;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;

/**
 * S11: everyone creates one ephemeral node; the one create that succeeds holds the lock, and every
 * other contender watches the node (an exists watch) and tries again when it changes. Release
 * deletes the node. Why it is here: every release wakes every waiter (the herd); each watch that
 * fires while this client waits calls {@code onWake}. Release reads the node's owner and then
 * deletes it unconditionally, as the articles do, so a holder whose session expired frees the
 * node of the next holder and says whose it was.
 */
final class HerdLock implements Scheme {
  private final CuratorFramework zk;
  private final String process;
  private final Runnable onWake;
  private long counter;
  /** Runs once this client watches the node; tests wait for it before releasing. */
  Runnable watching = () -> {};

  HerdLock(String url, String process, Runnable onWake) throws InterruptedException {
    this.zk = Zk.connect(url);
    this.process = process;
    this.onWake = onWake;
  }

  @Override
  public Held acquire(String lock, Duration lease, Duration wait) throws Exception {
    long deadline = System.nanoTime() + wait.toNanos();
    String path = "/lab/herd/" + lock;
    byte[] value = (process + ":" + (++counter)).getBytes(StandardCharsets.UTF_8);
    while (true) {
      try {
        zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, value);
        return new PlainHeld(() -> release(path));
      } catch (KeeperException.NodeExistsException taken) {
        CountDownLatch changed = new CountDownLatch(1);
        CuratorWatcher watch = event -> {
          if (event.getType() != Watcher.Event.EventType.None && changed.getCount() > 0) {
            onWake.run();
            changed.countDown();
          }
        };
        if (zk.checkExists().usingWatcher(watch).forPath(path) == null) {
          continue;
        }
        watching.run();
        long left = deadline - System.nanoTime();
        if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
          changed.countDown();
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

  @Override
  public boolean fenced() {
    return false;
  }

  @Override
  public void close() {
    zk.close();
  }
}
