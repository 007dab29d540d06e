package dev.dlock.bench.targets;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The ZooKeeper floor: the fewest requests any ZooKeeper lock needs, one create of an ephemeral
 * node and one delete a cycle, with the raw {@link ZooKeeper} client on the run's server
 * ({@link ZkServer}), one session per client. No sequence, listing or watch: those are lock logic.
 * W4, a handoff, needs a waiter to wait on something: there it is {@link #handoffLock}.
 */
final class FloorZkTarget implements Target {
  static final String NAME = "floor-zookeeper";
  static final String LEGEND = NAME + ": the ZooKeeper floor, one create (ephemeral) and one delete"
      + " a cycle with the raw ZooKeeper client, one session per client, no recipe; in W4 the waiter's"
      + " node is queued and the holder's watched before the holder's delete, so a handoff is that"
      + " delete and its watch event.";
  private static final String ROOT = "/floor-bench";
  private static final byte[] EMPTY = new byte[0];

  private final List<ZooKeeper> sessions = new ArrayList<>();
  private final Waits waits = new Waits();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> forkJvmArgs() {
    return ZkServer.forkJvmArgs();
  }

  @Override
  public void setUp(int count) throws Exception {
    String connect = ZkServer.connectString();
    for (int i = 0; i < count; i++) {
      CountDownLatch connected = new CountDownLatch(1);
      ZooKeeper zk = new ZooKeeper(connect, ZkServer.SESSION_TIMEOUT_MS, e -> {
        if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
          connected.countDown();
        }
      });
      sessions.add(zk);
      if (!connected.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException(NAME + " could not connect to " + connect);
      }
    }
    try {
      sessions.get(0).create(ROOT, EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } catch (KeeperException.NodeExistsException e) {
      // A target before this one in the run made it.
    }
  }

  @Override
  public Lock lock(int client, String key) {
    ZooKeeper zk = sessions.get(client);
    String path = ROOT + "/" + key;
    return new FloorLock(NAME, key, () -> {
      try {
        zk.create(path, EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        return true;
      } catch (KeeperException.NodeExistsException e) {
        return false;
      }
    }, () -> {
      try {
        zk.delete(path, -1);
        return true;
      } catch (KeeperException.NoNodeException e) {
        return false;
      }
    });
  }

  /** W4's floor: {@link FloorZkHandoffLock}, the waiter queued and watching before the holder lets go. */
  @Override
  public Lock handoffLock(int client, String key) {
    String dir = ROOT + "/" + key + "-queue";
    try {
      sessions.get(client).create(dir, EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } catch (KeeperException.NodeExistsException e) {
      // The other player's lock made it.
    } catch (KeeperException e) {
      throw new IllegalStateException(NAME + " could not make " + dir, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(NAME + " was interrupted making " + dir, e);
    }
    return new FloorZkHandoffLock(sessions.get(client), dir, () -> waits.waited(key));
  }

  @Override
  public void awaitWaiter(String key) throws InterruptedException {
    waits.await(key);
  }

  @Override
  public void tearDown() throws InterruptedException {
    for (ZooKeeper zk : sessions) {
      zk.close();
    }
    sessions.clear();
  }
}
