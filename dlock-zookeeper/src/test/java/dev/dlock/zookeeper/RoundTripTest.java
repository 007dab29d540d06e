package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.testkit.RecordingContext;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What an uncontended acquire and a release cost, counted at the ZooKeeper handle: Curator is
 * given a factory that makes a ZooKeeper subclass counting every synchronous create, getChildren,
 * exists, getData, setData, multi and delete it sends (the backend uses no other call). With the ensemble tracker
 * off, Curator itself sends nothing, and
 * session pings do not go through these methods, so the count is exactly the requests the
 * backend made. The empty-container reaper is slowed down so that the lock's directory stays
 * between iterations, as it does on a busy lock.
 */
class RoundTripTest {
  private static final int N = 20;
  private static TestingServer server;

  @BeforeAll
  static void startServer() throws Exception {
    System.setProperty("znode.container.checkIntervalMs", "3600000");
    try {
      server = ZkServers.server();
    } finally {
      System.clearProperty("znode.container.checkIntervalMs");
    }
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  /** A ZooKeeper handle that counts the requests it is asked to send. */
  static final class CountingZooKeeper extends ZooKeeper {
    final AtomicInteger requests;

    CountingZooKeeper(String connect, int timeout, Watcher watcher, boolean readOnly, ZKClientConfig config,
        AtomicInteger requests) throws IOException {
      super(connect, timeout, watcher, readOnly, config);
      this.requests = requests;
    }

    // Only the overloads that send a request themselves; the others delegate to these.

    @Override
    public String create(String path, byte[] data, List<ACL> acl, CreateMode mode)
        throws KeeperException, InterruptedException {
      requests.incrementAndGet();
      return super.create(path, data, acl, mode);
    }

    @Override
    public String create(String path, byte[] data, List<ACL> acl, CreateMode mode, Stat stat, long ttl)
        throws KeeperException, InterruptedException {
      requests.incrementAndGet();
      return super.create(path, data, acl, mode, stat, ttl);
    }

    @Override
    public List<String> getChildren(String path, Watcher watcher) throws KeeperException, InterruptedException {
      requests.incrementAndGet();
      return super.getChildren(path, watcher);
    }

    @Override
    public List<String> getChildren(String path, Watcher watcher, Stat stat)
        throws KeeperException, InterruptedException {
      requests.incrementAndGet();
      return super.getChildren(path, watcher, stat);
    }

    @Override
    public Stat exists(String path, Watcher watcher) throws KeeperException, InterruptedException {
      requests.incrementAndGet();
      return super.exists(path, watcher);
    }

    @Override
    public byte[] getData(String path, Watcher watcher, Stat stat) throws KeeperException, InterruptedException {
      requests.incrementAndGet();
      return super.getData(path, watcher, stat);
    }

    @Override
    public void delete(String path, int version) throws InterruptedException, KeeperException {
      requests.incrementAndGet();
      super.delete(path, version);
    }

    @Override
    public Stat setData(String path, byte[] data, int version) throws KeeperException, InterruptedException {
      requests.incrementAndGet();
      return super.setData(path, data, version);
    }

    @Override
    public List<OpResult> multi(Iterable<Op> ops) throws InterruptedException, KeeperException {
      requests.incrementAndGet();
      return super.multi(ops);
    }
  }

  private static ZooKeeperBackend counting(AtomicInteger requests) {
    ZookeeperFactory factory = new ZookeeperFactory() {
      @Override
      public ZooKeeper newZooKeeper(String connect, int timeout, Watcher watcher, boolean readOnly)
          throws Exception {
        return newZooKeeper(connect, timeout, watcher, readOnly, new ZKClientConfig());
      }

      @Override
      public ZooKeeper newZooKeeper(String connect, int timeout, Watcher watcher, boolean readOnly,
          ZKClientConfig config) throws Exception {
        return new CountingZooKeeper(connect, timeout, watcher, readOnly, config, requests);
      }
    };
    return ZooKeeperBackendProvider.open(ZkServers.url(server.getConnectString(), ""), factory);
  }

  @Test
  void uncontendedAcquireCostsTwoRoundTripsAndReleaseOne() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    try (LockClient client = LockClient.builder().backend(counting(requests)).build()) {
      String name = "cheap";
      client.lock(name).acquire(Duration.ofSeconds(10)).close(); // creates the directories once
      int acquires = 0;
      int releases = 0;
      for (int i = 0; i < N; i++) {
        int before = requests.get();
        Lease l = client.lock(name).acquire(Duration.ofSeconds(10));
        int afterAcquire = requests.get();
        l.close();
        acquires += afterAcquire - before;
        releases += requests.get() - afterAcquire;
      }
      System.out.printf("round trips: %d acquires took %d, %d releases took %d%n", N, acquires, N, releases);
      assertThat(acquires).as("round trips of %d uncontended acquires", N).isEqualTo(2 * N);
      assertThat(releases).as("round trips of %d releases", N).isEqualTo(N);
    }
  }

  /** A lock or a semaphore, as far as this test needs one. */
  private interface Acquirer {
    Lease acquire(Duration maxWait) throws InterruptedException;
  }

  @Test
  void everyOtherKindAlsoCostsTwoRoundTripsPerUncontendedAcquireAndOnePerRelease() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    try (LockClient client = LockClient.builder().backend(counting(requests)).build()) {
      Map<String, Function<String, Acquirer>> kinds = Map.of(
          "fair", name -> client.fairLock(name)::acquire,
          "read", name -> client.readWriteLock(name).readLock()::acquire,
          "write", name -> client.readWriteLock(name).writeLock()::acquire,
          "permit", name -> client.semaphore(name, 3)::acquire);
      for (Map.Entry<String, Function<String, Acquirer>> kind : kinds.entrySet()) {
        Acquirer lock = kind.getValue().apply("cheap-" + kind.getKey());
        lock.acquire(Duration.ofSeconds(10)).close(); // creates the directories once
        int acquires = 0;
        int releases = 0;
        for (int i = 0; i < N; i++) {
          int before = requests.get();
          Lease l = lock.acquire(Duration.ofSeconds(10));
          int afterAcquire = requests.get();
          l.close();
          acquires += afterAcquire - before;
          releases += requests.get() - afterAcquire;
        }
        System.out.printf("round trips, %s: %d acquires took %d, %d releases took %d%n", kind.getKey(), N,
            acquires, N, releases);
        assertThat(acquires).as("round trips of %d uncontended %s acquires", N, kind.getKey()).isEqualTo(2 * N);
        assertThat(releases).as("round trips of %d %s releases", N, kind.getKey()).isEqualTo(N);
      }
    }
  }

  @Test
  void oneShotTryOnAHeldLockLeavesNothingBehind() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    try (ZooKeeperBackend holder = counting(new AtomicInteger());
        ZooKeeperBackend other = counting(requests)) {
      holder.start(new RecordingContext("holder"));
      other.start(new RecordingContext("other"));
      Attempt held = holder.tryAcquire("one-shot", "holder:1", Duration.ofSeconds(5), false);
      assertThat(held.isGranted()).isTrue();
      int before = requests.get();
      Attempt miss = other.tryAcquire("one-shot", "other:1", Duration.ofSeconds(5), false);
      assertThat(miss.isGranted()).isFalse();
      assertThat(miss.holder()).contains("holder:1");
      assertThat(requests.get() - before).as("create, getChildren, delete").isEqualTo(3);
      assertThat(holder.session().zk().getChildren(holder.nodes().dir("one-shot"), false))
          .as("the nodes left: only the holder's").hasSize(1);
      assertThat(holder.renew(List.of(new Grant("one-shot", "holder:1", held.token())), Duration.ofSeconds(5)))
          .as("renewal of a live session's grant").isEmpty();
      assertThat(holder.release(new Grant("one-shot", "holder:1", held.token()))).isTrue();
      assertThat(holder.release(new Grant("one-shot", "holder:1", held.token()))).as("a second release").isFalse();
    }
  }
}
