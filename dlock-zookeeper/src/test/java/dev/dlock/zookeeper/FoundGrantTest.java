package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.Ticker;
import dev.dlock.testkit.RecordingContext;
import dev.dlock.zookeeper.SpiClients.Spi;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The rule for a waiter that finds itself granted by a watch event or a listing, in each recipe
 * ({@link QueueNodes#grantFound}): it holds only while its session's last word from the leader
 * lasts, and confirms with a sync and an exists of its node when a third of that or less is left.
 * The waiter runs on a clock the test sets ahead, so its last contact with the leader is old
 * without any waiting, and on a ZooKeeper handle that counts its syncs and can stop it right after
 * the server answered a listing, as a paused process or a follower's stale read would. Its node is
 * then deleted from outside, as its expired session's would be, with a third contender queued
 * behind it, which the deletion makes first: granting itself there would make two holders.
 */
class FoundGrantTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  @RegisterExtension
  static final ZkServer server = new ZkServer();

  private SpiClients clients;
  private Waiter waiter;
  private ZooKeeper raw;

  /** The three recipes, each asked as a waiter that wakes up first in line. */
  enum Recipe {
    EXCLUSIVE(LockKind.EXCLUSIVE, false),
    READ_WRITE(LockKind.WRITE, true),
    SEMAPHORE(LockKind.PERMIT, true);

    final LockKind kind;
    /** Whether a woken waiter lists the queue before it grants; the exclusive one takes the head's delete. */
    final boolean lists;

    Recipe(LockKind kind, boolean lists) {
      this.kind = kind;
      this.lists = lists;
    }
  }

  @BeforeEach
  void open() throws Exception {
    // The longest session the server allows: the lease is 12 s, so a real pause of a few seconds
    // between queueing and granting still leaves the times this test sets apart.
    String url = server.url("sessionTimeout=30s");
    clients = new SpiClients(url);
    waiter = new Waiter(url);
    raw = server.rawClient();
  }

  @AfterEach
  void close() throws Exception {
    raw.close();
    waiter.backend.close();
    clients.close();
  }

  /** The waiter: its backend, a clock the test sets ahead, its syncs, and a stop after a listing. */
  static final class Waiter implements BackendContext {
    static final String OWNER = "waiter:1";
    final RecordingContext recorded = new RecordingContext("waiter");
    final AtomicLong ahead = new AtomicLong();
    final AtomicInteger syncs = new AtomicInteger();
    /** Run once, on the waiter's event thread, when the answer to its next listing has come. */
    final AtomicReference<Runnable> afterListing = new AtomicReference<>();
    final ZooKeeperBackend backend;

    Waiter(String url) {
      backend = ZooKeeperBackendProvider.open(url, ZkServers.factory(
          (connect, timeout, watcher, readOnly, config) ->
              new PausingZooKeeper(connect, timeout, watcher, readOnly, config, this)));
      backend.start(this);
    }

    Attempt request(String name, Recipe r) {
      return backend.tryAcquire(new LockRequest(name, r.kind, 1, OWNER, SpiClients.LEASE, true, null));
    }

    /** Its node's path, as the backend knows it. */
    String node() {
      return backend.queueNodes().contender(OWNER).node;
    }

    /** How long the waiter's session surely lives past its last word from the leader. */
    Duration lease() {
      return backend.session().lease();
    }

    void pauseAfterListing() {
      Runnable run = afterListing.getAndSet(null);
      if (run != null) {
        run.run();
      }
    }

    @Override
    public String clientId() {
      return recorded.clientId();
    }

    @Override
    public Ticker ticker() {
      return () -> System.nanoTime() + ahead.get();
    }

    @Override
    public void released(String name) {
      recorded.released(name);
    }

    @Override
    public void lost(Grant grant, String reason) {
      recorded.lost(grant, reason);
    }
  }

  /** A ZooKeeper handle that counts syncs and runs the waiter's stop before a listing's answer is used. */
  static final class PausingZooKeeper extends ZooKeeper {
    private final Waiter waiter;

    PausingZooKeeper(String connect, int timeout, Watcher watcher, boolean readOnly, ZKClientConfig config,
        Waiter waiter) throws IOException {
      super(connect, timeout, watcher, readOnly, config);
      this.waiter = waiter;
    }

    @Override
    public void sync(String path, AsyncCallback.VoidCallback cb, Object ctx) {
      waiter.syncs.incrementAndGet();
      super.sync(path, cb, ctx);
    }

    @Override
    public void getChildren(String path, Watcher watcher, AsyncCallback.ChildrenCallback cb, Object ctx) {
      super.getChildren(path, watcher, (rc, p, c, children) -> {
        waiter.pauseAfterListing();
        cb.processResult(rc, p, c, children);
      }, ctx);
    }

    @Override
    public void multi(Iterable<Op> ops, AsyncCallback.MultiCallback cb, Object ctx) {
      super.multi(ops, (rc, p, c, results) -> {
        waiter.pauseAfterListing(); // the semaphore lists in a multi of reads
        cb.processResult(rc, p, c, results);
      }, ctx);
    }
  }

  /** A holder, then the waiter, woken first in line by the holder's release. */
  private Spi wokenBehind(String name, Recipe r) throws InterruptedException {
    Spi holder = clients.open("holder");
    Attempt held = holder.request(name, r.kind, 1);
    assertThat(held.isGranted()).as("the holder's grant").isTrue();
    assertThat(waiter.request(name, r).isGranted()).as("the waiter, behind the holder").isFalse();
    assertThat(holder.release(name, r.kind, held)).isTrue();
    assertThat(waiter.recorded.nextWakeUp(PATIENCE)).as("the waiter's wake-up").isEqualTo(name);
    return holder;
  }

  @ParameterizedTest
  @EnumSource(Recipe.class)
  void aWaiterWithThreeFifthsOfItsLeaseLeftIsGrantedForNoMoreThanThatWithoutARoundTrip(Recipe r) throws Exception {
    String name = "part-" + r;
    wokenBehind(name, r);
    Duration lease = waiter.lease();
    // Above the third that calls for a confirmation by over 3 s of the 12 s lease: room for a slow machine.
    waiter.ahead.set(lease.multipliedBy(2).dividedBy(5).toNanos());
    int syncs = waiter.syncs.get();

    Attempt a = waiter.request(name, r);

    assertThat(a.isGranted()).as("granted when first in line").isTrue();
    assertThat(waiter.syncs.get() - syncs).as("syncs sent to confirm").isZero();
    assertThat(a.validity()).as("valid only while the last leader contact lasts, of a %s lease", lease)
        .hasValueSatisfying(v -> assertThat(v).isPositive().isLessThanOrEqualTo(lease.multipliedBy(3).dividedBy(5)));
  }

  @ParameterizedTest
  @EnumSource(Recipe.class)
  void aWaiterWithNoLeaseLeftConfirmsWithASyncAndThenHoldsTheWholeLease(Recipe r) throws Exception {
    String name = "none-" + r;
    wokenBehind(name, r);
    waiter.ahead.set(waiter.lease().toNanos());
    int syncs = waiter.syncs.get();

    Attempt a = waiter.request(name, r);

    assertThat(a.isGranted()).as("granted when first in line, its node confirmed").isTrue();
    assertThat(waiter.syncs.get() - syncs).as("syncs sent to confirm").isEqualTo(1);
    assertThat(a.validity()).as("a leader contact sent after the try began: the whole lease").isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Recipe.class)
  void aWaiterWhoseNodeWentWhileItWasStoppedQueuesAgainBehindTheOneItLetIn(Recipe r) throws Exception {
    String name = "gone-" + r;
    Spi holder = clients.open("holder");
    Attempt held = holder.request(name, r.kind, 1);
    assertThat(held.isGranted()).isTrue();
    assertThat(waiter.request(name, r).isGranted()).as("the waiter, behind the holder").isFalse();
    Spi tail = clients.open("tail");
    assertThat(tail.request(name, r.kind, 1).isGranted()).as("the tail, behind the waiter").isFalse();
    String node = waiter.node();
    assertThat(holder.release(name, r.kind, held)).isTrue();
    assertThat(waiter.recorded.nextWakeUp(PATIENCE)).as("the waiter's wake-up").isEqualTo(name);
    Runnable expire = () -> {
      try {
        raw.delete(node, -1); // as the leader does when it expires the waiter's session
      } catch (Exception e) {
        throw new AssertionError("could not delete " + node, e);
      }
    };
    if (r.lists) {
      waiter.afterListing.set(expire); // its listing still shows its node first
    } else {
      expire.run(); // the head's delete event told it that it is first
    }
    waiter.ahead.set(waiter.lease().toNanos());

    Attempt a = waiter.request(name, r);

    assertThat(waiter.afterListing.get()).as("the stop after the listing ran").isNull();
    assertThat(a.isGranted()).as("the waiter, its node gone, granted").isFalse();
    assertThat(a.holder()).as("the first in line now").contains(tail.owner());
    assertThat(waiter.node()).as("the waiter's node").isNotEqualTo(node);
    assertThat(tail.context().nextWakeUp(PATIENCE)).as("the tail's wake-up").isEqualTo(name);
    assertThat(tail.request(name, r.kind, 1).isGranted()).as("the tail, first in line").isTrue();
  }
}
