package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockRequest;
import dev.dlock.testkit.RecordingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The watch a grant puts on its own node, sent only once the grant has been held for the guard
 * delay: a grant released sooner costs no watch, one held longer gets it, a deletion before the
 * watch is found by the exists that sets it, and a grant handed off before its watch passes the
 * watch on to its new owner. Each test waits for the watch's exists itself, through a handle that
 * records the paths it watches, so that no test depends on how fast the machine is.
 */
class GuardWatchTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);
  @RegisterExtension
  static final ZkServer server = new ZkServer();

  /** The paths of the guard watches sent, in order, and a latch per path waited for. */
  private static final class Guards {
    final List<String> paths = new CopyOnWriteArrayList<>();
    final List<CountDownLatch> latches = new CopyOnWriteArrayList<>();
    final List<String> awaited = new CopyOnWriteArrayList<>();

    void sent(String path) {
      paths.add(path);
      for (int i = 0; i < awaited.size(); i++) {
        if (awaited.get(i).equals(path)) {
          latches.get(i).countDown();
        }
      }
    }

    /** Waits until a guard watch of {@code path} is sent; false after the patience. */
    boolean await(String path) throws InterruptedException {
      CountDownLatch l = new CountDownLatch(1);
      latches.add(l);
      awaited.add(path);
      if (paths.contains(path)) {
        return true;
      }
      return l.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private static ZooKeeperBackend backend(Guards sent, Duration delay) {
    ZooKeeperBackend b = ZooKeeperBackendProvider.open(server.url(""), ZkServers.factory(
        (connect, timeout, watcher, readOnly, config) ->
            new RoundTripTest.CountingZooKeeper(connect, timeout, watcher, readOnly, config,
                new AtomicInteger(), new AtomicInteger()) {
              @Override
              public void exists(String path, Watcher w, AsyncCallback.StatCallback cb, Object ctx) {
                if (w instanceof HeldNodes) {
                  sent.sent(path);
                }
                super.exists(path, w, cb, ctx);
              }
            }));
    b.held().guardDelay(delay);
    return b;
  }

  private static Attempt grant(ZooKeeperBackend b, String name, String owner) {
    Attempt a = b.tryAcquire(LockRequest.exclusive(name, owner, Duration.ofSeconds(30), false));
    assertThat(a.isGranted()).as("the grant of %s to %s", name, owner).isTrue();
    return a;
  }

  private static String node(ZooKeeper raw, ZooKeeperBackend b, String name) throws Exception {
    String dir = b.nodes().dir(name);
    List<String> nodes = raw.getChildren(dir, false);
    assertThat(nodes).as("the nodes of %s", name).hasSize(1);
    return dir + "/" + nodes.get(0);
  }

  private final Guards guards = new Guards();
  private final RecordingContext context = new RecordingContext("holder");
  private final List<AutoCloseable> opened = new ArrayList<>();

  /** A started backend whose grants' watches are due after {@code delay}, closed after the test. */
  private ZooKeeperBackend holder(Duration delay) {
    ZooKeeperBackend b = backend(guards, delay);
    opened.add(b);
    b.start(context);
    return b;
  }

  private ZooKeeper raw() throws Exception {
    ZooKeeper raw = server.rawClient();
    opened.add(raw);
    return raw;
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
  }

  @Test
  void aGrantReleasedBeforeTheDelaySendsNoWatchAndOneHeldLongerGetsIt() throws Exception {
    ZooKeeperBackend holder = holder(Duration.ofSeconds(1));
    ZooKeeper raw = raw();
    Attempt brief = grant(holder, "brief", "holder:1");
    assertThat(holder.release(new Grant("brief", "holder:1", brief.token()))).isTrue();
    Attempt kept = grant(holder, "kept", "holder:2");
    String node = node(raw, holder, "kept");
    assertThat(guards.await(node)).as("the watch of the grant held past the delay").isTrue();
    // Due grants are swept in order: the brief one's turn came first, and it sent nothing.
    assertThat(guards.paths).as("guard watches sent").containsExactly(node);
    raw.delete(node, -1);
    assertThat(context.nextLoss(PATIENCE)).as("the loss its watch reported")
        .isEqualTo(new Grant("kept", "holder:2", kept.token()));
  }

  @Test
  void aNodeDeletedBeforeItsWatchIsReportedLostByTheExistsThatSetsIt() throws Exception {
    ZooKeeperBackend holder = holder(Duration.ofMillis(300));
    ZooKeeper raw = raw();
    Attempt a = grant(holder, "early", "holder:1");
    raw.delete(node(raw, holder, "early"), -1);
    assertThat(context.nextLoss(PATIENCE)).as("the loss the watch's exists found")
        .isEqualTo(new Grant("early", "holder:1", a.token()));
  }

  @Test
  void aGrantHandedOffBeforeItsWatchPassesTheWatchToItsNewOwner() throws Exception {
    ZooKeeperBackend holder = holder(Duration.ofMillis(300));
    ZooKeeper raw = raw();
    Attempt first = grant(holder, "passed", "holder:1");
    Attempt passed = holder.handOff(new Grant("passed", "holder:1", first.token()), "holder:2",
        Duration.ofSeconds(30));
    assertThat(passed).isNotNull();
    assertThat(passed.isGranted()).isTrue();
    String node = node(raw, holder, "passed");
    assertThat(guards.await(node)).as("the watch, set for the new owner").isTrue();
    raw.delete(node, -1);
    assertThat(context.nextLoss(PATIENCE)).as("the new owner's loss")
        .isEqualTo(new Grant("passed", "holder:2", passed.token()));
  }
}
