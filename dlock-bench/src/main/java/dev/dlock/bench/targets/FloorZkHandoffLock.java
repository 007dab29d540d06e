package dev.dlock.bench.targets;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The ZooKeeper floor of W4, a handoff: the waiter's node is queued and the node ahead of it
 * watched before the holder lets go, so a handoff costs the holder's delete and the watch event,
 * the least any ZooKeeper lock can spend on it. Only for W4's two players: with one node ahead,
 * that node is the holder's, so its delete grants; with more ahead a waiter would have to list the
 * queue again, which is lock logic.
 */
final class FloorZkHandoffLock implements Lock {
  private static final byte[] EMPTY = new byte[0];

  private final ZooKeeper zk;
  private final String dir;
  private final Runnable waited;
  private String mine;

  /** {@code waited} runs once the lock found held, before it blocks. */
  FloorZkHandoffLock(ZooKeeper zk, String dir, Runnable waited) {
    this.zk = zk;
    this.dir = dir;
    this.waited = waited;
  }

  @Override
  public void lock() {
    try {
      mine = zk.create(dir + "/n-", EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
      List<String> queue = zk.getChildren(dir, false);
      Collections.sort(queue); // the sequence suffix is zero-padded, so names sort in queue order
      int i = queue.indexOf(mine.substring(dir.length() + 1));
      if (i <= 0) {
        return;
      }
      CountDownLatch gone = new CountDownLatch(1);
      Watcher deleted = e -> {
        if (e.getType() == Watcher.Event.EventType.NodeDeleted) {
          gone.countDown();
        }
      };
      if (zk.exists(dir + "/" + queue.get(i - 1), deleted) == null) {
        return; // the holder let go between the listing and the watch
      }
      waited.run();
      gone.await();
    } catch (KeeperException e) {
      throw new IllegalStateException(FloorZkTarget.NAME + " could not take " + dir, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(FloorZkTarget.NAME + " was interrupted waiting for " + dir, e);
    }
  }

  @Override
  public void lockInterruptibly() {
    lock();
  }

  @Override
  public boolean tryLock() {
    throw new UnsupportedOperationException(FloorZkTarget.NAME + " hands off in W4 only: it has no tryLock");
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) {
    return tryLock();
  }

  @Override
  public void unlock() {
    if (mine == null) {
      throw new IllegalMonitorStateException(FloorZkTarget.NAME + " does not hold " + dir);
    }
    try {
      zk.delete(mine, -1);
      mine = null;
    } catch (KeeperException e) {
      throw new IllegalStateException(FloorZkTarget.NAME + " could not delete " + mine, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(FloorZkTarget.NAME + " was interrupted deleting " + mine, e);
    }
  }

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException(FloorZkTarget.NAME + " has no conditions");
  }
}
