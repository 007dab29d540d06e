package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.zookeeper.TestClients.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The herd effect, counted. With 50 waiters queued behind a holder, dlock's S12 lock wakes
 * exactly one waiter per release: 50 releases that had a waiter, 50 wake-ups in all, one per
 * client, counted both as predecessor-watch events in the backends and as woken events of the
 * clients (which never poll). The naive S11 lock, where all 50 watch one node, wakes all 50 with
 * the first release alone.
 */
class HerdTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final int WAITERS = 50;

  private TestingServer server;
  private final TestClients clients = new TestClients();
  private final List<ZooKeeper> raw = new ArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void start() throws Exception {
    server = ZkServers.server();
  }

  @AfterEach
  void stop() throws Exception {
    threads.shutdownNow();
    clients.close();
    for (ZooKeeper zk : raw) {
      zk.close();
    }
    server.close();
  }

  @Test
  void eachReleaseWakesExactlyOneWaiterWhileTheNaiveLockWakesThemAll() throws Exception {
    // S12: dlock.
    String url = ZkServers.url(server.getConnectString(), "sessionTimeout=10s");
    String name = "herd";
    Client holder = clients.open(url);
    Lease held = holder.client().lock(name).acquire(PATIENCE);
    List<Client> waiters = new ArrayList<>();
    List<CompletableFuture<Long>> done = new ArrayList<>();
    for (int i = 0; i < WAITERS; i++) {
      Client c = clients.open(url);
      waiters.add(c);
      done.add(CompletableFuture.supplyAsync(() -> {
        try (Lease l = c.client().lock(name).acquire(PATIENCE)) {
          return l.token();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }, threads));
    }
    for (Client c : waiters) {
      c.counts().awaitWaited(PATIENCE);
    }
    held.close();
    for (CompletableFuture<Long> f : done) {
      assertThat(f.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(held.token());
    }
    int watchEvents = holder.backend().wakeUps();
    int woken = holder.counts().woken.get();
    for (Client c : waiters) {
      assertThat(c.counts().woken.get()).as("wake-ups of one waiter").isEqualTo(1);
      watchEvents += c.backend().wakeUps();
      woken += c.counts().woken.get();
    }
    assertThat(watchEvents).as("predecessor-watch events for %d releases that had a waiter", WAITERS)
        .isEqualTo(WAITERS);
    assertThat(woken).as("woken events").isEqualTo(WAITERS);

    // S11: everybody watches one node.
    AtomicInteger naiveWakeUps = new AtomicInteger();
    ZooKeeper first = connect();
    String path = "/naive-herd";
    first.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    CountDownLatch waiting = new CountDownLatch(WAITERS);
    CountDownLatch wokenByFirst = new CountDownLatch(WAITERS);
    CountDownLatch finish = new CountDownLatch(1);
    List<CompletableFuture<Void>> naive = new ArrayList<>();
    for (int i = 0; i < WAITERS; i++) {
      NaiveLock lock = new NaiveLock(connect(), path, naiveWakeUps);
      naive.add(CompletableFuture.runAsync(() -> {
        try {
          lock.lock(waiting, wokenByFirst);
          finish.await(); // hold until every waiter woke, so only one release has happened
          lock.unlock();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, threads));
    }
    assertThat(waiting.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("all naive waiters watch").isTrue();
    first.delete(path, -1);
    assertThat(wokenByFirst.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .as("one release woke every naive waiter").isTrue();
    assertThat(naiveWakeUps.get()).as("naive wake-ups from a single release").isEqualTo(WAITERS);
    finish.countDown();
    for (CompletableFuture<Void> f : naive) {
      f.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }
    System.out.printf("herd: S12 %d releases woke %d waiters; S11 the first release woke %d, all %d releases woke %d%n",
        WAITERS + 1, watchEvents, WAITERS, WAITERS + 1, naiveWakeUps.get());
    assertThat(naiveWakeUps.get()).as("naive wake-ups in all, against %d for dlock", WAITERS)
        .isGreaterThan(WAITERS * 5);
  }

  private ZooKeeper connect() throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(server.getConnectString(), 10_000, e -> {
      if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    raw.add(zk);
    assertThat(connected.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    return zk;
  }
}
