package dev.dlock.bench.targets;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The ZooKeeper floor: the fewest requests any ZooKeeper lock needs, one create of an ephemeral
 * node and one delete a cycle, with the raw {@link ZooKeeper} client on the run's server
 * ({@link ZkServer}), one session per client. No sequence, listing or watch: those are lock logic.
 * W4, a handoff, needs a waiter to wait on something: there it is {@link #handoffLock}.
 *
 * <p>{@value #QUEUE} is the floor of a queue lock that grants in one round trip: its acquire is a
 * transaction of a sequential create and a write to the key's directory, whose answer counts the
 * directory's nodes, so a lone node is a grant without a listing. Why it is here: a create alone
 * cannot tell its maker whether it is first, so a lock lists the queue after it, a second round
 * trip, or asks in the same one, as here (dlock's exclusive lock does, request for request). It
 * shows what that costs before any lock logic, in time and in the bytes the client allocates.
 */
final class FloorZkTarget implements Target {
  static final String NAME = "floor-zookeeper";
  static final String QUEUE = "floor-zookeeper-queue";
  static final String LEGEND = NAME + ": the ZooKeeper floor, one create (ephemeral) and one delete"
      + " a cycle with the raw ZooKeeper client, one session per client, no recipe; in W4 the waiter's"
      + " node is queued and the holder's watched before the holder's delete, so a handoff is that"
      + " delete and its watch event. " + QUEUE + ": a queue lock's one-round-trip grant, a transaction"
      + " of a sequential create (ephemeral) and a write to the key's directory, whose answer counts its"
      + " nodes (granted if alone, else deleted and tried again), and one delete.";
  private static final String ROOT = "/floor-bench";
  private static final byte[] EMPTY = new byte[0];

  private final boolean queue;
  private final List<ZooKeeper> sessions = new ArrayList<>();
  private final Waits waits = new Waits();

  private FloorZkTarget(boolean queue) {
    this.queue = queue;
  }

  /** {@value #NAME}. */
  static FloorZkTarget plain() {
    return new FloorZkTarget(false);
  }

  /** {@value #QUEUE}. */
  static FloorZkTarget queue() {
    return new FloorZkTarget(true);
  }

  @Override
  public String name() {
    return queue ? QUEUE : NAME;
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
    if (queue) {
      return queueLock(zk, key);
    }
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

  /**
   * {@value #QUEUE}'s lock on {@code key}. It keeps its node's path from acquire to release: the
   * bench gives every thread locks of its own.
   */
  private Lock queueLock(ZooKeeper zk, String key) {
    String dir = makeDir(zk, ROOT + "/" + key + "-nodes");
    String prefix = dir + "/n-";
    String[] node = new String[1];
    return new FloorLock(QUEUE, key, () -> {
      List<OpResult> r = zk.multi(List.of(
          Op.create(prefix, EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL),
          Op.setData(dir, EMPTY, -1)));
      node[0] = ((OpResult.CreateResult) r.get(0)).getPath();
      if (((OpResult.SetDataResult) r.get(1)).getStat().getNumChildren() == 1) {
        return true;
      }
      zk.delete(node[0], -1); // another thread's node is there: no queue, try again
      return false;
    }, () -> {
      zk.delete(Objects.requireNonNull(node[0], "no node"), -1);
      node[0] = null;
      return true;
    });
  }

  /** W4's floor: {@link FloorZkHandoffLock}, the waiter queued and watching before the holder lets go. */
  @Override
  public Lock handoffLock(int client, String key) {
    String dir = makeDir(sessions.get(client), ROOT + "/" + key + "-queue");
    return new FloorZkHandoffLock(sessions.get(client), dir, () -> waits.waited(key));
  }

  /** Creates the persistent node {@code dir} unless another lock of the run made it; returns it. */
  private String makeDir(ZooKeeper zk, String dir) {
    try {
      zk.create(dir, EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } catch (KeeperException.NodeExistsException e) {
      // Another thread's or client's lock made it.
    } catch (KeeperException e) {
      throw new IllegalStateException(name() + " could not make " + dir, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(name() + " was interrupted making " + dir, e);
    }
    return dir;
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
