package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.Grant;
import dev.dlock.testkit.RecordingContext;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What an uncontended acquire and a release cost, counted at the ZooKeeper handle: Curator is
 * given a factory that makes a ZooKeeper subclass counting every request the backend sends (all
 * asynchronous: create, getChildren, exists, getData, setData, multi, delete and sync; it uses no
 * other call). The watch a grant sets on its own node is counted apart, as a guard: it is sent
 * without being waited for, and only once the grant has been held for a delay ({@link GuardWatchTest}),
 * which these tests set longer than any of their holds. With the ensemble tracker off, Curator itself sends nothing, and
 * session pings do not go through these methods, so the counts are exactly the requests the
 * backend made. The empty-container reaper is slowed down so that the lock's directory stays
 * between iterations, as it does on a busy lock.
 */
class RoundTripTest {
  private static final int N = 20;
  @RegisterExtension
  static final ZkServer server = new ZkServer(Duration.ofHours(1));

  /** A ZooKeeper handle that counts the requests it is asked to send, and the guard watches apart. */
  static class CountingZooKeeper extends ZooKeeper {
    final AtomicInteger requests;
    final AtomicInteger guards;

    CountingZooKeeper(String connect, int timeout, Watcher watcher, boolean readOnly, ZKClientConfig config,
        AtomicInteger requests, AtomicInteger guards) throws IOException {
      super(connect, timeout, watcher, readOnly, config);
      this.requests = requests;
      this.guards = guards;
    }

    // Only the overloads that send a request themselves; the others delegate to these.

    @Override
    public void create(String path, byte[] data, List<ACL> acl, CreateMode mode, AsyncCallback.Create2Callback cb,
        Object ctx, long ttl) {
      requests.incrementAndGet();
      super.create(path, data, acl, mode, cb, ctx, ttl);
    }

    @Override
    public void getChildren(String path, Watcher watcher, AsyncCallback.ChildrenCallback cb, Object ctx) {
      requests.incrementAndGet();
      super.getChildren(path, watcher, cb, ctx);
    }

    @Override
    public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb, Object ctx) {
      (watcher instanceof HeldNodes ? guards : requests).incrementAndGet();
      super.exists(path, watcher, cb, ctx);
    }

    @Override
    public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb, Object ctx) {
      requests.incrementAndGet();
      super.getData(path, watcher, cb, ctx);
    }

    @Override
    public void delete(String path, int version, AsyncCallback.VoidCallback cb, Object ctx) {
      requests.incrementAndGet();
      super.delete(path, version, cb, ctx);
    }

    @Override
    public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb, Object ctx) {
      requests.incrementAndGet();
      super.setData(path, data, version, cb, ctx);
    }

    @Override
    public void multi(Iterable<Op> ops, AsyncCallback.MultiCallback cb, Object ctx) {
      requests.incrementAndGet();
      super.multi(ops, cb, ctx);
    }

    @Override
    public void sync(String path, AsyncCallback.VoidCallback cb, Object ctx) {
      requests.incrementAndGet();
      super.sync(path, cb, ctx);
    }
  }

  private static ZooKeeperBackend counting(AtomicInteger requests) {
    return counting(requests, new AtomicInteger());
  }

  private static ZooKeeperBackend counting(AtomicInteger requests, AtomicInteger guards) {
    return counting("", requests, guards);
  }

  private static ZooKeeperBackend counting(String params, AtomicInteger requests, AtomicInteger guards) {
    return ZooKeeperBackendProvider.open(server.url(params), ZkServers.factory(
        (connect, timeout, watcher, readOnly, config) ->
            new CountingZooKeeper(connect, timeout, watcher, readOnly, config, requests, guards)));
  }

  @Test
  void uncontendedAcquireAndReleaseCostOneRoundTripEach() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    AtomicInteger guards = new AtomicInteger();
    // A long session, so no renewal round (a third of it) runs meanwhile: a round sends an exists of
    // a node whose watch it does not yet know to be in place, which a loaded machine makes likely.
    ZooKeeperBackend backend = counting("sessionTimeout=20s", requests, guards);
    backend.held().guardDelay(Duration.ofHours(1)); // no hold here lasts that long, however slow the machine
    try (LockClient client = LockClient.builder().backend(backend).build()) {
      String name = "cheap";
      client.lock(name).acquire(Duration.ofSeconds(10)).close(); // creates the directories once
      int acquires = 0;
      int releases = 0;
      int guardsBefore = guards.get();
      for (int i = 0; i < N; i++) {
        int before = requests.get();
        Lease l = client.lock(name).acquire(Duration.ofSeconds(10));
        int afterAcquire = requests.get();
        assertThat(client.inspect(name).orElseThrow().token())
            .as("the token, taken from the transaction: the node's czxid").isEqualTo(l.token());
        int beforeRelease = requests.get();
        l.close();
        acquires += afterAcquire - before;
        releases += requests.get() - beforeRelease;
      }
      System.out.printf("round trips: %d acquires took %d, %d releases took %d%n", N, acquires, N, releases);
      assertThat(acquires).as("round trips of %d uncontended acquires", N).isEqualTo(N);
      assertThat(releases).as("round trips of %d releases", N).isEqualTo(N);
      assertThat(guards.get() - guardsBefore).as("watches on their own node, of %d grants shorter than the delay", N)
          .isZero();
    }
  }

  /** A lock or a semaphore, as far as this test needs one. */
  private interface Acquirer {
    Lease acquire(Duration maxWait) throws InterruptedException;
  }

  @Test
  void everyOtherKindCostsOneRoundTripPerUncontendedAcquireButThePermitTwo() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    AtomicInteger guards = new AtomicInteger();
    ZooKeeperBackend backend = counting(requests, guards);
    backend.held().guardDelay(Duration.ofHours(1));
    try (LockClient client = LockClient.builder().backend(backend).build()) {
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
        int guardsBefore = guards.get();
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
        // The semaphore's directory holds its permit count, so its create cannot be the
        // transaction that rewrites the directory: a listing follows.
        int perAcquire = kind.getKey().equals("permit") ? 2 : 1;
        assertThat(acquires).as("round trips of %d uncontended %s acquires", N, kind.getKey())
            .isEqualTo(perAcquire * N);
        assertThat(releases).as("round trips of %d %s releases", N, kind.getKey()).isEqualTo(N);
        assertThat(guards.get() - guardsBefore).as("guard watches of %d short %s grants", N, kind.getKey()).isZero();
      }
    }
  }

  /**
   * {@code n} exclusive grants on {@code backend}, one owner and one lock each, acquired from 16
   * threads so that their requests share the round trips and the server's disk writes.
   */
  private static List<Grant> hold(ZooKeeperBackend backend, String prefix, int n) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(16);
    try {
      List<Future<Grant>> grants = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String name = prefix + i;
        String owner = prefix + ":" + i;
        grants.add(threads.submit(() -> {
          Attempt a = backend.tryAcquire(LockRequest.exclusive(name, owner, Duration.ofSeconds(5), false));
          assertThat(a.isGranted()).as("the grant of %s", name).isTrue();
          return new Grant(name, owner, a.token());
        }));
      }
      List<Grant> held = new ArrayList<>();
      for (Future<Grant> g : grants) {
        held.add(g.get());
      }
      return held;
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void aRenewalOfAThousandWatchedGrantsSendsOnlyTheSync() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    AtomicInteger guards = new AtomicInteger();
    // A loaded machine may take more than the default 2 s to write a thousand creates.
    try (ZooKeeperBackend holder = counting("connectTimeout=30s", requests, guards)) {
      holder.start(new RecordingContext("renewer"));
      List<Grant> grants = hold(holder, "renewed-", 1_000);
      int before = requests.get();
      int guardsBefore = guards.get();
      assertThat(holder.renew(grants, Duration.ofSeconds(5))).as("grants gone").isEmpty();
      assertThat(requests.get() - before).as("the sync").isEqualTo(1);
      // The watches sent at the grants are answered before the sync is: the next round trusts them all.
      assertThat(guards.get() - guardsBefore).as("exists of nodes whose watch was not yet answered")
          .isLessThanOrEqualTo(grants.size());
      before = requests.get();
      guardsBefore = guards.get();
      assertThat(holder.renew(grants, Duration.ofSeconds(5))).as("grants gone, second round").isEmpty();
      assertThat(requests.get() - before).as("the sync, second round").isEqualTo(1);
      assertThat(guards.get() - guardsBefore).as("exists, second round").isZero();
    }
  }

  @Test
  void aWatchedNodeDeletedBeforeTheRenewalIsFoundGoneBehindTheSyncAlone() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    AtomicInteger guards = new AtomicInteger();
    RecordingContext context = new RecordingContext("renewer");
    try (ZooKeeperBackend holder = counting(requests, guards); ZooKeeper raw = server.rawClient()) {
      holder.start(context);
      List<Grant> grants = hold(holder, "watched-", 3);
      assertThat(holder.renew(grants, Duration.ofSeconds(5))).as("grants gone, before the deletion").isEmpty();
      delete(raw, holder, grants.get(1));
      int before = requests.get();
      int guardsBefore = guards.get();
      assertThat(holder.renew(grants, Duration.ofSeconds(5))).as("grants gone").containsExactly(grants.get(1));
      assertThat(requests.get() - before).as("the sync").isEqualTo(1);
      assertThat(guards.get() - guardsBefore).as("exists").isZero();
      assertThat(context.nextLoss(Duration.ofSeconds(10))).as("the loss the watch reported").isEqualTo(grants.get(1));
    }
  }

  @Test
  void aNodeWhoseWatchFailedToBeSetIsCheckedByTheNextRenewal() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    AtomicInteger guards = new AtomicInteger();
    AtomicInteger failing = new AtomicInteger(2); // the watches of the two grants below
    CountDownLatch failed = new CountDownLatch(2);
    ZooKeeperBackend backend = ZooKeeperBackendProvider.open(server.url(""), ZkServers.factory(
        (connect, timeout, watcher, readOnly, config) ->
            new CountingZooKeeper(connect, timeout, watcher, readOnly, config, requests, guards) {
              @Override
              public void exists(String path, Watcher w, AsyncCallback.StatCallback cb, Object ctx) {
                if (w instanceof HeldNodes && failing.getAndDecrement() > 0) {
                  cb.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), path, ctx, null);
                  failed.countDown();
                } else {
                  super.exists(path, w, cb, ctx);
                }
              }
            }));
    try (ZooKeeperBackend holder = backend; ZooKeeper raw = server.rawClient()) {
      holder.start(new RecordingContext("renewer"));
      holder.held().guardDelay(Duration.ZERO);
      List<Grant> grants = hold(holder, "unwatched-", 2);
      assertThat(failed.await(10, TimeUnit.SECONDS)).as("both watches tried, and failed").isTrue();
      delete(raw, holder, grants.get(0)); // no watch on it: no event comes
      int guardsBefore = guards.get();
      assertThat(holder.renew(grants, Duration.ofSeconds(5))).as("grants gone").containsExactly(grants.get(0));
      assertThat(guards.get() - guardsBefore).as("an exists of each node without a watch").isEqualTo(2);
      guardsBefore = guards.get();
      assertThat(holder.renew(grants.subList(1, 2), Duration.ofSeconds(5))).as("grants gone, second round").isEmpty();
      assertThat(guards.get() - guardsBefore).as("exists, once the renewal's exists set the watch").isZero();
    }
  }

  /** Deletes the node of {@code g}, the only one in its lock's directory, from outside. */
  private static void delete(ZooKeeper raw, ZooKeeperBackend holder, Grant g) throws Exception {
    String dir = holder.nodes().dir(g.name());
    List<String> nodes = raw.getChildren(dir, false);
    assertThat(nodes).as("the nodes of %s", g.name()).hasSize(1);
    raw.delete(dir + "/" + nodes.get(0), -1);
  }

  @Test
  void oneShotTryOnAHeldLockLeavesNothingBehind() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    try (ZooKeeperBackend holder = counting(new AtomicInteger());
        ZooKeeperBackend other = counting(requests)) {
      holder.start(new RecordingContext("holder"));
      other.start(new RecordingContext("other"));
      Attempt held = holder.tryAcquire(LockRequest.exclusive("one-shot", "holder:1", Duration.ofSeconds(5), false));
      assertThat(held.isGranted()).isTrue();
      int before = requests.get();
      Attempt miss = other.tryAcquire(LockRequest.exclusive("one-shot", "other:1", Duration.ofSeconds(5), false));
      assertThat(miss.isGranted()).isFalse();
      assertThat(miss.holder()).contains("holder:1");
      assertThat(requests.get() - before).as("create (not alone), getChildren, delete").isEqualTo(3);
      assertThat(holder.session().zk().getChildren(holder.nodes().dir("one-shot"), false))
          .as("the nodes left: only the holder's").hasSize(1);
      assertThat(holder.renew(List.of(new Grant("one-shot", "holder:1", held.token())), Duration.ofSeconds(5)))
          .as("renewal of a live session's grant").isEmpty();
      assertThat(holder.release(new Grant("one-shot", "holder:1", held.token()))).isTrue();
      assertThat(holder.release(new Grant("one-shot", "holder:1", held.token()))).as("a second release").isFalse();
    }
  }

  @Test
  void aWaiterBehindTheHolderTakesTheLockOnItsWakeUpWithoutAskingTheServer() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    AtomicInteger guards = new AtomicInteger();
    try (ZooKeeperBackend holder = counting(new AtomicInteger());
        ZooKeeperBackend waiter = counting(requests, guards)) {
      RecordingContext waiterContext = new RecordingContext("waiter");
      holder.start(new RecordingContext("holder"));
      waiter.start(waiterContext);
      waiter.held().guardDelay(Duration.ofHours(1));
      Attempt held = holder.tryAcquire(LockRequest.exclusive("handoff", "holder:1", Duration.ofSeconds(5), false));
      assertThat(held.isGranted()).isTrue();
      int before = requests.get();
      assertThat(waiter.tryAcquire(LockRequest.exclusive("handoff", "waiter:1", Duration.ofSeconds(5), true)).isGranted()).isFalse();
      assertThat(requests.get() - before).as("create (not alone), getChildren, exists watch").isEqualTo(3);
      assertThat(holder.release(new Grant("handoff", "holder:1", held.token()))).isTrue();
      assertThat(waiterContext.nextWakeUp(Duration.ofSeconds(10))).isEqualTo("handoff");
      before = requests.get();
      Attempt taken = waiter.tryAcquire(LockRequest.exclusive("handoff", "waiter:1", Duration.ofSeconds(5), true));
      assertThat(taken.isGranted()).as("granted on the deleted head's wake-up").isTrue();
      assertThat(requests.get() - before).as("requests to take over from the head").isZero();
      assertThat(guards.get()).as("the watch on its own node, due only after the delay").isZero();
      assertThat(taken.token()).isGreaterThan(held.token());
      assertThat(waiter.inspect("handoff").orElseThrow().owner()).isEqualTo("waiter:1");
      assertThat(waiter.release(new Grant("handoff", "waiter:1", taken.token()))).isTrue();
    }
  }

  @Test
  void aWaiterWhosePredecessorWasNotTheHeadListsTheQueueAgain() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    try (ZooKeeperBackend holder = counting(new AtomicInteger());
        ZooKeeperBackend middle = counting(new AtomicInteger());
        ZooKeeperBackend last = counting(requests)) {
      RecordingContext lastContext = new RecordingContext("last");
      holder.start(new RecordingContext("holder"));
      middle.start(new RecordingContext("middle"));
      last.start(lastContext);
      Attempt held = holder.tryAcquire(LockRequest.exclusive("chain", "holder:1", Duration.ofSeconds(5), false));
      assertThat(middle.tryAcquire(LockRequest.exclusive("chain", "middle:1", Duration.ofSeconds(5), true)).isGranted()).isFalse();
      assertThat(last.tryAcquire(LockRequest.exclusive("chain", "last:1", Duration.ofSeconds(5), true)).isGranted()).isFalse();
      middle.cancel("chain", "middle:1"); // the waiter ahead gives up: the holder still holds
      assertThat(lastContext.nextWakeUp(Duration.ofSeconds(10))).isEqualTo("chain");
      int before = requests.get();
      assertThat(last.tryAcquire(LockRequest.exclusive("chain", "last:1", Duration.ofSeconds(5), true)).isGranted())
          .as("still behind the holder").isFalse();
      assertThat(requests.get() - before).as("getChildren, then a watch on the head").isEqualTo(2);
      assertThat(holder.release(new Grant("chain", "holder:1", held.token()))).isTrue();
      assertThat(lastContext.nextWakeUp(Duration.ofSeconds(10))).isEqualTo("chain");
      before = requests.get();
      assertThat(last.tryAcquire(LockRequest.exclusive("chain", "last:1", Duration.ofSeconds(5), true)).isGranted()).isTrue();
      assertThat(requests.get() - before).as("the head it watched is gone: no request").isZero();
    }
  }

  @Test
  void aHandOffWithinTheClientCostsNoRequestAndKeepsTheQueueBehind() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    AtomicInteger guards = new AtomicInteger();
    try (ZooKeeperBackend holder = counting(requests, guards);
        ZooKeeperBackend other = counting(new AtomicInteger())) {
      RecordingContext otherContext = new RecordingContext("other");
      holder.start(new RecordingContext("holder"));
      other.start(otherContext);
      Attempt held = holder.tryAcquire(LockRequest.exclusive("pass", "holder:1", Duration.ofSeconds(5), false));
      assertThat(other.tryAcquire(LockRequest.exclusive("pass", "other:1", Duration.ofSeconds(5), true)).isGranted()).isFalse();
      Grant first = new Grant("pass", "holder:1", held.token());
      assertThat(holder.renew(List.of(first), Duration.ofSeconds(5))).as("renewal before the hand-offs").isEmpty();
      int before = requests.get();
      int guardsBefore = guards.get();
      Attempt passed = holder.handOff(first, "holder:2", Duration.ofSeconds(5));
      assertThat(requests.get() - before).as("requests of a hand-off").isZero();
      assertThat(guards.get() - guardsBefore).as("the node's watch serves the new owner").isZero();
      assertThat(passed.isGranted()).isTrue();
      assertThat(passed.token()).isEqualTo(held.token() + 1);
      assertThat(holder.inspect("pass").orElseThrow())
          .as("the server's account: the node's first grant")
          .returns("holder:1", dev.dlock.spi.LockInfo::owner).returns(held.token(), dev.dlock.spi.LockInfo::token);
      assertThat(holder.release(first)).as("the old grant's release").isFalse();
      assertThat(holder.handOff(first, "holder:3", Duration.ofSeconds(5)).isGranted())
          .as("the old grant handed off again").isFalse();
      Grant last = new Grant("pass", "holder:2", passed.token());
      for (int i = 3; i <= 16; i++) {
        Attempt again = holder.handOff(last, "holder:" + i, Duration.ofSeconds(5));
        if (again == null) {
          assertThat(i).as("the hand-off that is declined, to stay below later nodes' tokens").isEqualTo(16);
          break;
        }
        last = new Grant("pass", "holder:" + i, again.token());
      }
      assertThat(otherContext.pendingWakeUps()).as("wake-ups of the waiter behind").isEmpty();
      guardsBefore = guards.get();
      assertThat(holder.renew(List.of(last), Duration.ofSeconds(5))).as("renewal of the last grant").isEmpty();
      assertThat(guards.get() - guardsBefore).as("exists: the node's watch, known in place, serves the new owner")
          .isZero();
      assertThat(holder.release(last)).isTrue();
      assertThat(otherContext.nextWakeUp(Duration.ofSeconds(10))).isEqualTo("pass");
      Attempt theirs = other.tryAcquire(LockRequest.exclusive("pass", "other:1", Duration.ofSeconds(5), true));
      assertThat(theirs.isGranted()).isTrue();
      assertThat(theirs.token()).isGreaterThan(last.token());
    }
  }
}
