package dev.dlock.lab;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;

/**
 * S13-naive: each contender creates an ephemeral sequential {@code read-} or {@code write-} node
 * under the lock's directory. A reader holds when every smaller node is a reader; a writer holds
 * when its node is the smallest. A waiter watches the children of the directory and re-checks on
 * every change. Why it is here: every change of the directory wakes every waiter (the herd); each
 * watch that fires while this client waits calls {@code onWake}.
 */
final class NaiveReadWrite implements ReadWriteScheme {
  private final CuratorFramework zk;
  private final String process;
  private final Runnable onWake;
  private long counter;
  /** Runs with the number of children each time this client waits; tests wait for it. */
  IntConsumer watching = n -> {};

  NaiveReadWrite(String url, String process, Runnable onWake) throws InterruptedException {
    this.zk = Zk.connect(url);
    this.process = process;
    this.onWake = onWake;
  }

  @Override
  public Held acquire(String lock, boolean shared, Duration lease, Duration wait) throws Exception {
    long deadline = System.nanoTime() + wait.toNanos();
    String dir = "/lab/rw/" + lock;
    byte[] value = (process + ":" + (++counter)).getBytes(StandardCharsets.UTF_8);
    String mine = zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
        .forPath(dir + (shared ? "/read-" : "/write-"), value);
    String name = mine.substring(dir.length() + 1);
    while (true) {
      CountDownLatch changed = new CountDownLatch(1);
      CuratorWatcher watch = event -> {
        if (event.getType() != Watcher.Event.EventType.None && changed.getCount() > 0) {
          onWake.run();
          changed.countDown();
        }
      };
      List<String> children = zk.getChildren().usingWatcher(watch).forPath(dir);
      if (holds(children, name, shared)) {
        changed.countDown();
        return new PlainHeld(() -> release(mine));
      }
      watching.accept(children.size());
      long left = deadline - System.nanoTime();
      if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
        changed.countDown();
        release(mine);
        return null;
      }
    }
  }

  /** Whether {@code name} holds among {@code children}, ordered by their sequence numbers. */
  static boolean holds(List<String> children, String name, boolean shared) {
    Comparator<String> bySequence = Comparator.comparing(c -> c.substring(c.lastIndexOf('-') + 1));
    for (String other : children.stream().sorted(bySequence).toList()) {
      if (other.equals(name)) {
        return true;
      }
      if (!shared || other.startsWith("write-")) {
        return false;
      }
    }
    throw new IllegalStateException("the node " + name + " is gone: the ZooKeeper session expired");
  }

  private String release(String path) throws Exception {
    try {
      zk.delete().forPath(path);
      return process;
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
