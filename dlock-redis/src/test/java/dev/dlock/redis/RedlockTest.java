package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockException;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockInfo;
import dev.dlock.spi.LockRequest;
import dev.dlock.testkit.FaultProxy;
import io.lettuce.core.SetArgs;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Redlock on five real redis-servers: down nodes, lost majorities, tokens, the restart guard. */
class RedlockTest {
  @RegisterExtension
  static final RedisNodes nodes = RedisNodes.perClass(5);

  @RegisterExtension
  final TestClients clients = new TestClients();

  private LockClient client(String query) {
    return clients.add(LockClient.builder().url(url(query)).build());
  }

  private LockClient watchdogClient(Duration lease) {
    return clients.add(LockClient.builder().url(url("")).leaseTime(lease).build());
  }

  private static String url(String query) {
    return nodes.url("nodeTimeout=200ms" + (query.isEmpty() ? "" : "&" + query));
  }

  @AfterEach
  void allNodesUp() {
    nodes.startAll();
  }

  @Test
  void worksWithTwoOfFiveNodesDownBeforeAndAfterOpen() throws Exception {
    nodes.stop(3);
    nodes.stop(4);
    LockClient a = client("");
    DistributedLock lock = a.lock("minority-down");
    long first = tokenOf(lock);
    long second = tokenOf(lock);
    assertThat(second).isGreaterThan(first);

    nodes.start(3);
    nodes.start(4);
    // The client connects to nodes it could not reach at open lazily, when a round finds them
    // missing (at most every 500 ms): lock until both nodes see it connected.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (clientsOn(3) < 1 || clientsOn(4) < 1) {
      assertThat(System.nanoTime()).as("the client connected to the late nodes").isLessThan(deadline);
      tokenOf(lock);
      Thread.sleep(50);
    }
    nodes.stop(0);
    nodes.stop(1);
    long third = tokenOf(lock);
    long fourth = tokenOf(lock);
    assertThat(third).isGreaterThan(second);
    assertThat(fourth).isGreaterThan(third);
  }

  @Test
  void aNodeDownAtOpenIsConnectedLaterOnTheEnginesTicker() throws Exception {
    nodes.stop(4);
    // The engine's ticker an hour behind the system's: a node's reconnect pause timed at open, on
    // the system's ticker, must not hold its reconnect back for that hour once the engine's runs.
    LockClient a = clients.add(LockClient.builder().url(url(""))
        .ticker(() -> System.nanoTime() - TimeUnit.HOURS.toNanos(1)).build());
    DistributedLock lock = a.lock("late-node-ticker");
    tokenOf(lock);
    nodes.start(4);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (clientsOn(4) < 1) {
      assertThat(System.nanoTime()).as("the client connected to the late node").isLessThan(deadline);
      tokenOf(lock);
      Thread.sleep(50);
    }
  }

  @Test
  void threeOfFiveDownFailsPromptlyNamingTheCountAndTheHolderLearnsItLost() throws Exception {
    Lease held = watchdogClient(Duration.ofSeconds(1)).lock("majority-down").acquire(Duration.ofSeconds(5));
    LockClient b = client("");
    nodes.stop(0);
    nodes.stop(1);
    nodes.stop(2);
    long start = System.nanoTime();
    assertThatThrownBy(() -> b.lock("majority-down-other").tryAcquire())
        .isInstanceOf(BackendUnavailableException.class)
        .hasMessageContaining("only 2 of 5 nodes answered, 3 needed");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    // The next renewal (every third of the lease) finds no majority: the holder is told.
    assertThat(held.lost().toCompletableFuture().get(3, TimeUnit.SECONDS)).hasMessageContaining("majority-down");
    assertThat(held.isValid()).isFalse();
    assertThatThrownBy(() -> client(""))
        .isInstanceOf(BackendUnavailableException.class)
        .hasMessageContaining("only 2 of 5 nodes reachable, 3 needed");
  }

  @Test
  void aHolderWhoseMajorityForgetsTheLockIsToldItLost() throws Exception {
    Lease held = watchdogClient(Duration.ofSeconds(1)).lock("forgotten").acquire(Duration.ofSeconds(5));
    for (int i = 0; i < 3; i++) {
      nodes.on(i, c -> c.del(key("forgotten", 0)));
    }
    assertThat(held.lost().toCompletableFuture().get(3, TimeUnit.SECONDS)).hasMessageContaining("forgotten");
    // Its remains on the other nodes were released, so another client gets it at once.
    Optional<Lease> next = client("").lock("forgotten").tryAcquire();
    assertThat(next).isPresent();
    next.get().close();
  }

  @Test
  void tokensIncreaseWhenSuccessiveGrantsUseDifferentMajorities() throws Exception {
    String name = "majorities";
    DistributedLock lock = client("").lock(name);
    // Node 4's counter is ahead of the others and of every clock, as after grants it alone saw
    // from a server whose clock ran ahead: the year 2128 in microseconds.
    long ahead = 5_000_000_000_000_000L;
    nodes.on(4, c -> c.set(key(name, 1), Long.toString(ahead)));
    block(name, 0, 1);
    long first = tokenOf(lock); // granted by nodes 2, 3, 4: the highest counter is node 4's
    assertThat(first).isEqualTo(ahead + 1);
    // Phase 2 raised the counters of the other granting nodes to the token.
    assertThat(counter(2, name)).isEqualTo(Long.toString(ahead + 1));
    assertThat(counter(3, name)).isEqualTo(Long.toString(ahead + 1));
    unblock(name, 0, 1);
    block(name, 3, 4);
    long second = tokenOf(lock); // granted by nodes 0, 1, 2; without phase 2, by their clocks
    assertThat(second).isGreaterThan(first);
    unblock(name, 3, 4);
    assertThat(tokenOf(lock)).isGreaterThan(second);
  }

  @Test
  void tokensKeepRisingWhenTheNextMajorityIsNodesThatRestartedEmpty() throws Exception {
    String name = "amnesia";
    DistributedLock lock = client("").lock(name);
    long first = tokenOf(lock);
    long second = tokenOf(lock);
    for (int i = 0; i < 3; i++) {
      nodes.stop(i);
      nodes.start(i);
    }
    block(name, 3, 4); // the nodes that kept their counters refuse: only the empty ones grant
    long third = tokenOf(lock);
    assertThat(third).as("the token granted by three nodes that forgot the lock, against %d", second)
        .isGreaterThan(second).isGreaterThan(first);
    unblock(name, 3, 4);
  }

  @Test
  void restartedNodesDoNotVoteUnderTheGuardAndBreakMutualExclusionWithoutIt() throws Exception {
    String name = "restart";
    long delay = 4;
    // Nodes 0, 1 and 2 must have been up for restartDelay, so that they vote for a guarded client.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(delay + 5);
    while (nodes.uptime(0) < delay || nodes.uptime(1) < delay || nodes.uptime(2) < delay) {
      assertThat(System.nanoTime()).as("nodes 0-2 up for %d s", delay).isLessThan(deadline);
      Thread.sleep(100);
    }
    LockClient early = client("restartDelay=" + delay + "s");
    Optional<Lease> before = early.lock(name + "-before", Duration.ofSeconds(1)).tryAcquire();
    assertThat(before).as("a guarded client while nodes 0-2 have been up long enough").isPresent();
    before.get().close();
    nodes.stop(3);
    nodes.stop(4);
    Lease held = client("").lock(name, Duration.ofSeconds(30)).acquire(Duration.ofSeconds(5));
    // Node 2 crashes and comes back without persistence; 3 and 4 come back empty too.
    nodes.stop(2);
    nodes.start(2);
    nodes.start(3);
    nodes.start(4);

    LockClient guarded = client("restartDelay=" + delay + "s");
    assertThatThrownBy(() -> guarded.lock(name, Duration.ofSeconds(delay + 1)).tryAcquire())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT" + (delay + 1) + "S").hasMessageContaining("PT" + delay + "S");
    assertThat(guarded.lock(name, Duration.ofSeconds(1)).tryAcquire())
        .as("the guarded client, while only nodes 0 and 1 vote and both name the holder").isEmpty();
    assertThat(early.lock(name, Duration.ofSeconds(1)).tryAcquire())
        .as("a guarded client that saw the nodes reconnect").isEmpty();

    // The known Redlock failure the rule exists for: without the guard, the three nodes that
    // forgot the lock form a majority, and a second client is granted it while the first holds it.
    Optional<Lease> second = client("").lock(name, Duration.ofSeconds(1)).tryAcquire();
    assertThat(second).as("the unguarded client after the restart").isPresent();
    // The first holder's client saw node 2 reconnect and re-checked at once: it hears it lost
    // the majority, though perhaps only after the second grant, and long before its next renewal.
    held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    second.get().close();
  }

  @Test
  void aReleaseWakesTheWaiterLongBeforeItsRetry() throws Exception {
    String name = "woken";
    Lease held = client("").lock(name).acquire(Duration.ofSeconds(5));
    // A waiter that would ask again only after 30 s: its place lasts 90 s, its retry hint is a
    // third of that or the holder's time left, and the client polls at most every 30 s.
    Counter events = new Counter();
    LockClient waiter = clients.add(LockClient.builder()
        .backend(RedlockBackend.open(RedlockUrl.parse(url("")), Duration.ofSeconds(90)))
        .maxPollInterval(Duration.ofSeconds(30)).listener(events).build());
    Future<Long> next = clients.tokenOf(waiter.lock(name), Duration.ofSeconds(60));
    assertThat(events.await("waited", 1, Duration.ofSeconds(10))).isTrue();
    held.close();
    assertThat(next.get(5, TimeUnit.SECONDS)).isGreaterThan(held.token());
    assertThat(events.get("woken")).as("wake-ups: one, however many nodes the release freed").isEqualTo(1);
  }

  @Test
  void aWaiterWhoseWakeIsLostGetsTheLockByItsRetry() throws Exception {
    String name = "wake-lost";
    block(name, 3, 4);
    Lease held = client("").lock(name).acquire(Duration.ofSeconds(5)); // on nodes 0, 1 and 2 only
    // The waiter reaches node 0 through a proxy, which holds node 0's message back: only nodes 1
    // and 2 tell it (3 and 4 are held by another until after the release), no majority, so no
    // wake. Its retry hint is a third of the waiter timeout.
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", nodes.port(0)))) {
      Counter events = new Counter();
      LockClient waiter = clients.add(LockClient.builder().url(url("").replace(
              "127.0.0.1:" + nodes.port(0) + ",", "127.0.0.1:" + proxy.port() + ","))
          .maxPollInterval(Duration.ofSeconds(30)).listener(events).build());
      Future<Long> next = clients.tokenOf(waiter.lock(name), Duration.ofSeconds(60));
      assertThat(events.await("waited", 1, Duration.ofSeconds(10))).isTrue();
      proxy.freeze();
      held.close();
      unblock(name, 3, 4);
      assertThat(next.get(RedlockBackend.WAITER_TIMEOUT.toSeconds() + 3, TimeUnit.SECONDS))
          .isGreaterThan(held.token());
      assertThat(events.get("woken")).as("wake-ups with one of the three nodes' messages lost").isZero();
    }
  }

  /**
   * A failed try's pause before the next counts from its answers, not from its start. A round that
   * waits out silent nodes (the node timeout, 200 ms here) lasts longer than the random pause of
   * 10-50 ms, which, counted from the start, had run out before the answers came. In the lab,
   * three workers that each reached a different three nodes (their connections to the other two
   * had gone silent) then asked again right after their own undo, each keeping the nodes it
   * reached from the others, and none got the lock for seconds.
   */
  @Test
  void aTryThatWaitsOutSilentNodesStillPausesAfterItsAnswers() throws Exception {
    String name = "slow-split";
    block(name, 0, 1); // another owner on two nodes: no majority holds it, so no wake to wait for
    try (FaultProxy to3 = FaultProxy.start(new InetSocketAddress("127.0.0.1", nodes.port(3)));
        FaultProxy to4 = FaultProxy.start(new InetSocketAddress("127.0.0.1", nodes.port(4)))) {
      String url = url("").replace(":" + nodes.port(3) + ",", ":" + to3.port() + ",")
          .replace(":" + nodes.port(4) + "?", ":" + to4.port() + "?");
      LockBackend backend = new RedlockBackendProvider().open(url);
      try {
        to3.freeze();
        to4.freeze();
        long sent = System.nanoTime();
        Attempt a = backend.tryAcquire(LockRequest.exclusive(name, "slow:1", Duration.ofSeconds(5), false));
        long took = System.nanoTime() - sent;

        assertThat(a.isGranted()).isFalse();
        assertThat(Duration.ofNanos(took)).as("the try, which waited out nodes 3 and 4")
            .isGreaterThanOrEqualTo(Duration.ofMillis(200));
        assertThat(a.retryAfter()).as("its retry hint, which the engine counts from the try's start")
            .isGreaterThanOrEqualTo(Duration.ofMillis(210));
      } finally {
        to3.thaw();
        to4.thaw();
        backend.close();
      }
    }
  }

  @Test
  void inspectReportsTheHolderOfAMajority() throws Exception {
    LockClient a = client("");
    LockClient b = client("");
    try (Lease held = a.lock("inspected").acquire(Duration.ofSeconds(5))) {
      LockInfo info = b.inspect("inspected").orElseThrow();
      assertThat(info.owner()).startsWith(a.id() + ":");
      assertThat(info.token()).isEqualTo(held.token());
      assertThat(info.remaining()).isPositive();
      assertThat(b.inspectAll()).extracting(LockInfo::name).contains("inspected");
    }
    assertThat(b.inspect("inspected")).isEmpty();
  }

  @Test
  void aForeignValueOnOneNodeIsAnErrorNamingTheNodeAndTheKey() throws Exception {
    String name = "foreign";
    LockClient a = client("");
    nodes.on(0, c -> c.set(key(name, 0), "garbage"));
    ThrowingCallable[] ops = {() -> a.lock(name).tryAcquire(), () -> a.inspect(name)};
    for (ThrowingCallable op : ops) {
      assertThatThrownBy(op).isInstanceOf(LockException.class)
          .isNotInstanceOf(BackendUnavailableException.class)
          .hasMessageContaining("redlock node 127.0.0.1:" + nodes.port(0))
          .hasMessageContaining("redis key '" + key(name, 0) + "' holds a string of 7 bytes 'garbage'");
    }
    assertThat(nodes.<String>on(0, c -> c.get(key(name, 0)))).isEqualTo("garbage");
    nodes.on(0, c -> c.del(key(name, 0)));
    // The refused acquire left no grant on the other nodes: the next one, on the same
    // connections and so after that clean-up, gets the lock at once.
    assertThat(a.lock(name).tryAcquire()).hasValueSatisfying(Lease::close);
  }

  @Test
  void badUrlsAreRejectedAtOnceNamingTheValue() {
    RedlockBackendProvider p = new RedlockBackendProvider();
    assertThatThrownBy(() -> p.open("redlock://127.0.0.1:1,127.0.0.1:2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redlock url needs at least 3 nodes: redlock://127.0.0.1:1,127.0.0.1:2");
    assertThatThrownBy(() -> p.open("redlock://h:1,h:2,h:x")).hasMessageContaining("'h:x'");
    assertThatThrownBy(() -> p.open("redlock://h:1,h:2,h:3?nodeTimeout=fast"))
        .hasMessageContaining("nodeTimeout must be a duration such as 50ms or 2s: fast");
    assertThatThrownBy(() -> p.open("redlock://h:1,h:2,h:3?nodeTimeout=0ms"))
        .hasMessage("nodeTimeout must be positive: 0ms");
    assertThatThrownBy(() -> p.open("redlock://h:1,h:2,h:3?restartDelay=soon"))
        .hasMessageContaining("restartDelay must be a duration such as 50ms or 2s: soon");
    assertThatThrownBy(() -> p.open("redlock://h:1,h:2,h:3?drift=1.5")).hasMessageContaining("drift")
        .hasMessageContaining("1.5");
    assertThatThrownBy(() -> p.open("redlock://h:1,h:2,h:3?bogus=1"))
        .hasMessageContaining("unknown redlock url parameter 'bogus'");
    assertThatThrownBy(() -> p.open("redlock://h:1,h:2,h:3?prefix=a{b}")).hasMessageContaining("a{b}");
    assertThatThrownBy(() -> p.open("redis://h:1,h:2,h:3")).hasMessageContaining("redlock://");
    assertThatThrownBy(() -> p.open("redlock://u:secret@h:1,h:1,h:3"))
        .hasMessageContaining("names node h:1 twice")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret"));
    RedlockUrl parsed = RedlockUrl.parse("redlock://u:secret@h:1,h:2,h:3,h:4?nodeTimeout=2s&drift=0.05");
    assertThat(parsed.description()).doesNotContain("secret");
    assertThat(parsed.nodeTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(parsed.majority()).isEqualTo(3);
    String dead = "redlock://127.0.0.1:" + RedisTestServer.freePort() + ",127.0.0.1:"
        + RedisTestServer.freePort() + ",127.0.0.1:" + RedisTestServer.freePort();
    assertThatThrownBy(() -> p.open(dead)).isInstanceOf(BackendUnavailableException.class)
        .hasMessageContaining("only 0 of 3 nodes reachable, 2 needed");
  }

  private static long tokenOf(DistributedLock lock) throws InterruptedException {
    try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
      return lease.token();
    }
  }

  /** Key {@code which} of the lock (0 lock, 1 token counter), as the scripts name it. */
  private static String key(String name, int which) {
    return new String(new Keys(RedisUrl.DEFAULT_PREFIX).of(name)[which], StandardCharsets.UTF_8);
  }

  private static String counter(int node, String name) {
    return nodes.<String>on(node, c -> c.get(key(name, 1)));
  }

  /** Makes the nodes refuse {@code name}: another owner holds it there. */
  private static void block(String name, int... indexes) {
    for (int i : indexes) {
      nodes.on(i, c -> c.set(key(name, 0), "-60000 someone:1", SetArgs.Builder.px(60_000)));
    }
  }

  private static void unblock(String name, int... indexes) {
    for (int i : indexes) {
      nodes.on(i, c -> c.del(key(name, 0)));
    }
  }

  /** The connections a node has, other than the one asking. */
  private static long clientsOn(int i) {
    return nodes.on(i, c -> c.clientList().lines().count() - 1);
  }
}
