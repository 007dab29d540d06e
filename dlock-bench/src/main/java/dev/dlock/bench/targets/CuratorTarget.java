package dev.dlock.bench.targets;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Curator's {@link InterProcessMutex} on the run's ZooKeeper ({@link ZkServer}): the baseline the
 * ZooKeeper backend is compared with. Each client is one {@link CuratorFramework} (one session),
 * and each {@link #lock} call gets its own mutex, as an application thread would; Curator then
 * queues every thread at the server, each with its own node.
 */
public final class CuratorTarget implements Target {
  static final String NAME = "curator";
  private static final String ROOT = "/curator-bench/";

  static final String LEGEND = "curator: Curator 5.9 InterProcessMutex (curator-recipes) with"
      + " its defaults; one mutex per thread and key, one CuratorFramework per client.";

  private final List<CuratorFramework> clients = new ArrayList<>();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> forkJvmArgs() {
    return ZkServer.forkJvmArgs();
  }

  @Override
  public void setUp(int count) throws InterruptedException {
    String connect = ZkServer.connectString();
    for (int i = 0; i < count; i++) {
      CuratorFramework c = CuratorFrameworkFactory.newClient(connect, ZkServer.SESSION_TIMEOUT_MS, 5_000,
          new ExponentialBackoffRetry(100, 3));
      c.start();
      clients.add(c);
      if (!c.blockUntilConnected(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("curator could not connect to " + connect);
      }
    }
  }

  @Override
  public Lock lock(int client, String key) {
    return new CuratorLock(new InterProcessMutex(clients.get(client), ROOT + key));
  }

  /** Returns once a second node (a waiter's) is in the key's queue, polling the server. */
  @Override
  public void awaitWaiter(String key) throws InterruptedException {
    InterProcessMutex probe = new InterProcessMutex(clients.get(0), ROOT + key);
    long end = System.nanoTime() + WAITER_TIMEOUT.toNanos();
    try {
      while (probe.getParticipantNodes().size() < 2) {
        if (System.nanoTime() - end > 0) {
          throw new IllegalStateException("no client waited for '" + key + "' within " + WAITER_TIMEOUT);
        }
        Thread.yield();
      }
    } catch (InterruptedException | IllegalStateException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("cannot list the queue of '" + key + "'", e);
    }
  }

  @Override
  public void tearDown() {
    clients.forEach(CuratorFramework::close);
    clients.clear();
  }
}
