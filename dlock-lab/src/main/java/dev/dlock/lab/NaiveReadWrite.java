package dev.dlock.lab;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntConsumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * S13-naive: each contender creates an ephemeral sequential {@code read-} or {@code write-} node
 * under the lock's directory. A reader holds when every smaller node is a reader; a writer holds
 * when its node is the smallest. A waiter watches the children of the directory and re-checks on
 * every change. Why it is here: every change of the directory wakes every waiter (the herd); each
 * watch that fires while this client waits calls {@code onWake}.
 */
final class NaiveReadWrite extends ZkScheme implements ReadWriteScheme {
  /** Runs with the number of children each time this client waits; tests wait for it. */
  IntConsumer watching = n -> {};

  NaiveReadWrite(String url, String process, Runnable onWake) throws InterruptedException {
    super(url, process, onWake);
  }

  @Override
  public Held acquire(String lock, boolean shared, Duration lease, Duration wait) throws Exception {
    long deadline = System.nanoTime() + wait.toNanos();
    String dir = "/lab/rw/" + lock;
    byte[] value = nextValue();
    String mine = zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
        .forPath(dir + (shared ? "/read-" : "/write-"), value);
    String name = mine.substring(dir.length() + 1);
    while (true) {
      ChangeWatch watch = watch();
      List<String> children = zk.getChildren().usingWatcher(watch).forPath(dir);
      if (holds(children, name, shared)) {
        watch.cancel();
        return new PlainHeld(() -> release(mine));
      }
      watching.accept(children.size());
      if (!watch.await(deadline)) {
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
}
