package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockInfo;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import dev.dlock.testkit.RecordingContext;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Keys, command counts and bad input, on a real redis-server. */
class RedisBackendTest {
  @RegisterExtension
  static final RedisTestServer server = RedisTestServer.perClass();
  @RegisterExtension
  final TestClients clients = new TestClients();

  private LockClient client(String query, Counter counter, Duration lease) {
    LockClient c = LockClient.builder().url(server.url() + query).listener(counter).leaseTime(lease).build();
    clients.add(c);
    return c;
  }

  // ---- keys

  @Test
  void everyKeyOfALockHashesToOneSlotWhateverTheName() {
    Keys keys = new Keys("dlock:");
    for (String name : List.of("plain", "}", "}x", "{", "{}", "a}b", "a{b}c", "%7D", "%", "日本{語}",
        "\u0000nul", "x".repeat(256))) {
      Set<Integer> slots = new HashSet<>();
      for (byte[] key : keys.of(name)) {
        assertThat(new String(key, StandardCharsets.UTF_8)).startsWith("dlock:{");
        slots.add(SlotHash.getSlot(key));
      }
      assertThat(slots).as("slots of the keys of lock '%s'", name).hasSize(1);
      assertThat(keys.nameOf(keys.lock(name))).isEqualTo(name);
      // The last name's keys are kept: they must be that name's, whichever name came before.
      assertThat(keys.of(name)[0]).as("the lock key of '%s'", name).isEqualTo(keys.lock(name));
    }
    // Escaping keeps distinct names apart, and writes exactly what earlier versions wrote.
    assertThat(keys.lock("a}b")).isNotEqualTo(keys.lock("a%7Db"));
    assertThat(new String(keys.of("日}%")[1], StandardCharsets.UTF_8)).isEqualTo("dlock:{日%7D%25}:token");
  }

  @Test
  void locksLiveUnderThePrefixAndNamesWithBracesAndUnicodeWork() throws Exception {
    String prefix = "keys-test:";
    Counter counter = new Counter();
    LockClient a = client("?prefix=" + prefix, counter, Duration.ofSeconds(30));
    List<String> names = List.of("}x", "a{b}c", "日本語 ünï", "plain");
    List<Lease> leases = new ArrayList<>();
    for (String name : names) {
      leases.add(a.lock(name).acquire(Duration.ofSeconds(5)));
    }
    List<String> stored = server.admin().sync().keys(prefix + "*");
    assertThat(stored).hasSize(2 * names.size()).allMatch(k -> k.startsWith(prefix + "{"));
    assertThat(a.inspectAll()).extracting(LockInfo::name).containsExactlyElementsOf(
        names.stream().sorted().toList());
    for (int i = 0; i < names.size(); i++) {
      LockInfo info = a.inspect(names.get(i)).orElseThrow();
      assertThat(info.token()).isEqualTo(leases.get(i).token());
      assertThat(info.owner()).startsWith(a.id() + ":");
      assertThat(info.remaining()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
    }
    // Another prefix is another namespace: the same name is free there.
    LockClient b = client("?prefix=other:", new Counter(), Duration.ofSeconds(30));
    assertThat(b.lock("}x").tryAcquire()).isPresent().get().satisfies(Lease::close);
    leases.forEach(Lease::close);
    assertThat(a.inspectAll()).isEmpty();
    assertThat(server.admin().sync().keys(prefix + "*")).allMatch(k -> k.endsWith(":token"));
  }

  @Test
  void passingOnAReservationNeverFreesAGrant() throws Exception {
    // A wake-up can arrive after its owner's retry already took the reservation: the client then
    // passes the reservation on, and that must leave the grant alone.
    String name = "pass-" + System.nanoTime();
    LockClient c = client("", new Counter(), Duration.ofSeconds(30));
    Lease held = c.lock(name).acquire();
    String owner = c.inspect(name).orElseThrow().owner();
    RedisClient raw = RedisClient.create(RedisURI.create(server.url()));
    try (StatefulRedisConnection<byte[], byte[]> conn = raw.connect(ByteArrayCodec.INSTANCE)) {
      Scripts scripts = new Scripts(conn.async(), Duration.ofSeconds(5), System::nanoTime);
      scripts.load();
      Keys keys = new Keys("dlock:");
      Long freed = scripts.run(Scripts.Script.RELEASE, keys.of(name), Keys.utf8(owner),
          Keys.utf8("pass"), keys.channels(name), Keys.utf8(name), Keys.utf8("3000"), keys.publish());
      assertThat(freed).isZero();
    } finally {
      raw.shutdown();
    }
    assertThat(c.inspect(name)).get().extracting(LockInfo::token).isEqualTo(held.token());
    held.close();
  }

  /**
   * The token counter never expires, but an operator's DEL or an allkeys eviction policy can take
   * it while a lock key lives on; a retried acquire of the holder (its first answer lost) then
   * gets a fresh token above the last one, not a reply the client cannot read.
   */
  @Test
  void aRetriedAcquireAfterTheCounterWasDeletedGetsAHigherToken() throws Exception {
    String name = "counter-gone-" + System.nanoTime();
    LockBackend backend = new RedisBackendProvider().open(server.url());
    backend.start(new RecordingContext("counter-gone"));
    RedisClient raw = RedisClient.create(RedisURI.create(server.url()));
    try (StatefulRedisConnection<byte[], byte[]> conn = raw.connect(ByteArrayCodec.INSTANCE)) {
      LockRequest request = LockRequest.exclusive(name, "counter-gone:1", Duration.ofSeconds(30), false);
      Attempt first = backend.tryAcquire(request);
      assertThat(first.isGranted()).isTrue();
      assertThat(conn.sync().del(new Keys("dlock:").of(name)[1])).as("the counter deleted").isOne();

      Attempt retried = backend.tryAcquire(request);

      assertThat(retried.isGranted()).isTrue();
      assertThat(retried.token()).isGreaterThan(first.token());
    } finally {
      raw.shutdown();
      backend.close();
    }
  }

  // ---- cost

  @Test
  void uncontendedLockAndUnlockSendTwoCommands() throws Exception {
    LockClient c = client("", new Counter(), Duration.ofSeconds(30));
    DistributedLock lock = c.lock("cost-" + System.nanoTime());
    lock.acquire().close(); // scripts warm, connection open
    int cycles = 100;
    Map<String, Long> before = server.commandCalls();
    for (int i = 0; i < cycles; i++) {
      try (Lease outer = lock.acquire(); Lease inner = lock.acquire(); Lease third = lock.acquire()) {
        assertThat(inner.token()).isEqualTo(outer.token());
      }
    }
    Map<String, Long> delta = delta(before, server.commandCalls());
    assertThat(delta.get("evalsha")).as("commands sent, reentry included").isEqualTo(2L * cycles);
    // Inside: the acquire reads the token counter (GET, its shape judged from it), sets the lock
    // where no key is (SET NX) and draws the token (TIME, SET); the release reads the lock (GET,
    // its shape and holder judged from it) and deletes it (DEL). The queue's keys go unread.
    long n = cycles;
    assertThat(delta).as("commands run by the server per %d cycles", cycles).containsExactlyInAnyOrderEntriesOf(
        Map.of("evalsha", 2 * n, "get", 2 * n, "set", 2 * n, "time", n, "del", n));
  }

  @Test
  void aReleaseToAThreadOfTheSameClientSendsNothingAndWakesNoOtherClient() throws Exception {
    String name = "handoff-" + System.nanoTime();
    Counter events = new Counter();
    DistributedLock lock = client("", events, Duration.ofSeconds(30)).lock(name);
    Counter otherEvents = new Counter();
    DistributedLock other = client("", otherEvents, Duration.ofSeconds(30)).lock(name);
    Lease first = lock.acquire();
    Future<Long> otherToken = clients.tokenOf(other, Duration.ofSeconds(30));
    assertThat(otherEvents.await("waited", 1, Duration.ofSeconds(10))).isTrue();
    // One thread of the holder's client waits at the server, behind the other client; the next
    // waits in the client, for the one thread per name that the client lets ask the server.
    Future<Long> atServer = clients.tokenOf(lock, Duration.ofSeconds(30));
    assertThat(events.await("waited", 1, Duration.ofSeconds(10))).isTrue();
    CompletableFuture<Long> handed = new CompletableFuture<>();
    CountDownLatch done = new CountDownLatch(1);
    clients.threads().submit(() -> {
      try (Lease l = lock.acquire(Duration.ofSeconds(30))) {
        handed.complete(l.token());
        done.await();
      }
      return null;
    });
    assertThat(events.await("waited", 1, Duration.ofSeconds(10))).isTrue();

    Map<String, Long> before = server.commandCalls();
    first.close();
    assertThat(handed.get(10, TimeUnit.SECONDS)).as("the hand-off's token: the first spare one")
        .isEqualTo(first.token() + 1);
    assertThat(server.counter(name)).as("the server's counter: the grant's own token").isEqualTo(first.token());
    Map<String, Long> delta = delta(before, server.commandCalls());
    assertThat(delta).as("the hand-off's commands").doesNotContainKeys("evalsha", "publish", "getdel", "del");
    assertThat(otherEvents.get("woken")).as("the other client, by the hand-off").isZero();

    done.countDown();
    long others = otherToken.get(10, TimeUnit.SECONDS);
    assertThat(others).as("the other client, after the release").isGreaterThan(handed.get());
    assertThat(atServer.get(10, TimeUnit.SECONDS)).as("in its turn").isGreaterThan(others);
  }

  @Test
  void sixteenThreadsOfOneClientHandTheLockOnMostlyWithoutCommandsAndTheirTokensRise() throws Exception {
    String name = "turns-" + System.nanoTime();
    // A counter ahead of the server's clock, so that only the spare tokens keep grants apart.
    server.admin().sync().set(new String(new Keys(RedisUrl.DEFAULT_PREFIX).of(name)[1], StandardCharsets.UTF_8),
        "5000000000000000");
    DistributedLock lock = client("", new Counter(), Duration.ofSeconds(30)).lock(name);
    int threads = 16;
    int rounds = 50;
    List<Long> tokens = new ArrayList<>(threads * rounds); // written under the lock only
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      done.add(clients.threads().submit(() -> {
        start.await();
        for (int r = 0; r < rounds; r++) {
          try (Lease l = lock.acquire()) {
            tokens.add(l.token());
          }
        }
        return null;
      }));
    }
    Map<String, Long> before = server.commandCalls();
    start.countDown();
    for (Future<?> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    long evalsha = delta(before, server.commandCalls()).getOrDefault("evalsha", 0L);
    assertThat(tokens).as("tokens in the order the lock was held").hasSize(threads * rounds).isSorted()
        .doesNotHaveDuplicates();
    // Each grant from the server is handed on up to fifteen times in the client before its release.
    assertThat(evalsha).as("scripts run for %d turns", threads * rounds).isLessThan(threads * rounds / 2);
  }

  @Test
  void oneRenewalRoundIsOneCommandForAllLeases() throws Exception {
    Counter counter = new Counter();
    LockClient c = client("", counter, Duration.ofMillis(900));
    int leases = 5;
    List<Lease> held = new ArrayList<>();
    for (int i = 0; i < leases; i++) {
      held.add(c.lock("renew-" + i + "-" + System.nanoTime()).acquire());
    }
    assertThat(counter.await("renewed", leases, Duration.ofSeconds(5))).isTrue();
    Map<String, Long> before = server.commandCalls();
    assertThat(counter.await("renewed", leases, Duration.ofSeconds(5))).isTrue();
    Map<String, Long> delta = delta(before, server.commandCalls());
    assertThat(delta.get("evalsha")).as("commands sent for one round of %d renewals", leases).isEqualTo(1L);
    assertThat(held).allMatch(Lease::isValid);
    held.forEach(Lease::close);
  }

  /**
   * 2,500 grants renew in three pipelined calls of up to 1,000, each grant with one GET and one
   * PEXPIRE; a key past the first call that holds another program's value is reported as its own
   * grant lost, and only that one.
   */
  @Test
  void aRoundRenewsAThousandGrantsACallAndMapsAForeignKeyToItsGrant() {
    RedisBackend backend = RedisBackend.open(RedisUrl.parse(server.url()), RedisBackend.WAITER_TIMEOUT);
    try {
      backend.start(new RecordingContext("chunks"));
      String prefix = "chunk-" + System.nanoTime() + "-";
      List<Grant> grants = new ArrayList<>();
      for (int i = 0; i < 2_500; i++) {
        grants.add(hold(backend, prefix + i, LockKind.EXCLUSIVE, "chunks:" + i));
      }
      Grant planted = grants.get(1_500); // the 501st of the second call
      String key = key(new Keys("dlock:").lock(planted.name()));
      server.admin().sync().set(key, "not dlock's");

      Map<String, Long> before = server.commandCalls();
      Set<Grant> lost = backend.renew(grants, Duration.ofMinutes(2));
      Map<String, Long> delta = delta(before, server.commandCalls());

      assertThat(lost).as("the grants reported lost").containsExactly(planted);
      assertThat(delta).as("the commands of one round of 2,500 renewals").containsEntry("evalsha", 3L)
          .containsEntry("get", 2_500L).containsEntry("pexpire", 2_499L);
      String[] others = grants.stream().filter(g -> g != planted)
          .map(g -> key(new Keys("dlock:").lock(g.name()))).toArray(String[]::new);
      Long extended = server.admin().sync().eval("local n = 0 for _, k in ipairs(KEYS) do"
          + " if redis.call('PTTL', k) > 60000 then n = n + 1 end end return n",
          ScriptOutputType.INTEGER, others);
      assertThat(extended).as("the other leases, at the server past the minute").isEqualTo(2_499L);
      assertThat(server.admin().sync().get(key)).as("the foreign value, left alone").isEqualTo("not dlock's");
    } finally {
      backend.close();
    }
  }

  /** Exclusive grants and the other kinds renew in one round, a call for each script. */
  @Test
  void aMixedRoundRenewsEveryKind() {
    RedisBackend backend = RedisBackend.open(RedisUrl.parse(server.url()), RedisBackend.WAITER_TIMEOUT);
    try {
      backend.start(new RecordingContext("mixed"));
      String name = "mixed-" + System.nanoTime();
      Keys keys = new Keys("dlock:");
      List<Grant> grants = List.of(hold(backend, name + "-x1", LockKind.EXCLUSIVE, "mixed:1"),
          hold(backend, name + "-x2", LockKind.EXCLUSIVE, "mixed:2"),
          hold(backend, name, LockKind.FAIR, "mixed:3"), hold(backend, name, LockKind.READ, "mixed:4"),
          hold(backend, name + "-w", LockKind.WRITE, "mixed:5"),
          hold(backend, name, LockKind.PERMIT, "mixed:6"));
      Grant foreign = hold(backend, name + "-p", LockKind.PERMIT, "mixed:7");
      String holders = key(keys.semaphore(foreign.name())[0]);
      server.admin().sync().del(holders);
      server.admin().sync().set(holders, "not dlock's");
      List<Grant> round = new ArrayList<>(grants);
      round.add(3, foreign);

      Map<String, Long> before = server.commandCalls();
      Set<Grant> lost = backend.renew(round, Duration.ofMinutes(2));
      Map<String, Long> delta = delta(before, server.commandCalls());

      assertThat(lost).as("the grants reported lost").containsExactly(foreign);
      assertThat(delta.get("evalsha")).as("calls of one mixed round").isEqualTo(2L);
      List<String> strings = List.of(key(keys.lock(name + "-x1")), key(keys.lock(name + "-x2")),
          key(keys.fair(name)[0]), key(keys.readWrite(name + "-w")[0]));
      for (String k : strings) {
        assertThat(server.admin().sync().pttl(k)).as("lease of %s", k).isGreaterThan(60_000L);
      }
      long now = Long.parseLong(server.admin().sync().time().get(0)) * 1000;
      assertThat(server.admin().sync().zscore(key(keys.readWrite(name)[1]), "mixed:4"))
          .as("the read lease runs out at").isGreaterThan(now + 60_000);
      assertThat(server.admin().sync().zscore(key(keys.semaphore(name)[0]), "mixed:6"))
          .as("the permit lease runs out at").isGreaterThan(now + 60_000);
    } finally {
      backend.close();
    }
  }

  /** A round after a restart emptied the script cache loads the scripts again and renews. */
  @Test
  void aRoundAfterTheScriptCacheWasFlushedLoadsTheScriptsAndRenews() {
    RedisBackend backend = RedisBackend.open(RedisUrl.parse(server.url()), RedisBackend.WAITER_TIMEOUT);
    try {
      backend.start(new RecordingContext("flushed"));
      String name = "flushed-" + System.nanoTime();
      List<Grant> grants = List.of(hold(backend, name + "-1", LockKind.EXCLUSIVE, "flushed:1"),
          hold(backend, name + "-2", LockKind.EXCLUSIVE, "flushed:2"),
          hold(backend, name, LockKind.FAIR, "flushed:3"));
      server.admin().sync().scriptFlush();

      assertThat(backend.renew(grants, Duration.ofMinutes(2))).as("the grants reported lost").isEmpty();

      Keys keys = new Keys("dlock:");
      for (byte[] k : List.of(keys.lock(name + "-1"), keys.lock(name + "-2"), keys.fair(name)[0])) {
        assertThat(server.admin().sync().pttl(key(k))).as("lease of %s", key(k)).isGreaterThan(60_000L);
      }
    } finally {
      backend.close();
    }
  }

  private static Grant hold(RedisBackend backend, String name, LockKind kind, String owner) {
    Attempt a = backend.tryAcquire(
        new LockRequest(name, kind, 1, owner, Duration.ofSeconds(30), false, null));
    assertThat(a.isGranted()).as("%s takes %s lock '%s'", owner, kind, name).isTrue();
    return new Grant(name, owner, a.token(), kind);
  }

  private static String key(byte[] key) {
    return new String(key, StandardCharsets.UTF_8);
  }

  private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> d = new HashMap<>();
    after.forEach((k, v) -> {
      long diff = v - before.getOrDefault(k, 0L);
      if (diff != 0 && !k.equals("info")) {
        d.put(k, diff);
      }
    });
    return d;
  }

  // ---- bad input

  @Test
  void aPrefixWithBracesIsRefusedNamingIt() {
    assertThatThrownBy(() -> LockClient.builder().url(server.url() + "?prefix=app{1}:").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prefix must not contain braces").hasMessageContaining("app{1}:");
  }

  @Test
  void aMalformedUrlIsRefusedNamingItWithoutItsPassword() {
    assertThatThrownBy(() -> LockClient.builder().url("redis://user:secret@127.0.0.1:notaport").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("redis://user:***@127.0.0.1:notaport")
        .hasMessageNotContaining("secret");
    assertThatThrownBy(() -> LockClient.builder().url("redis://").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redis://");
  }

  @Test
  void anUnreachableServerFailsAtOnceNamingTheRedactedUrl() {
    String url = "redis://user:secret@127.0.0.1:" + RedisTestServer.freePort();
    long start = System.nanoTime();
    assertThatThrownBy(() -> LockClient.builder().url(url).build())
        .isInstanceOf(BackendUnavailableException.class)
        .hasMessageContaining("redis://user:***@127.0.0.1:")
        .hasMessageNotContaining("secret")
        .hasCauseInstanceOf(io.lettuce.core.RedisConnectionException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void aServerThatGoesAwayFailsCallsWithBackendUnavailableNotWithNotAcquired() throws Exception {
    try (RedisTestServer own = RedisTestServer.start()) {
      LockClient c = LockClient.builder().url(own.url() + "?timeout=1s").build();
      clients.add(c);
      DistributedLock lock = c.lock("gone");
      lock.acquire().close();
      own.close();
      long start = System.nanoTime();
      assertThatThrownBy(lock::tryAcquire)
          .isInstanceOf(BackendUnavailableException.class)
          .hasMessageContaining(own.url());
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void aLateReleaseOfAnExpiredLeaseLeavesTheNewHolderInPlace() throws Exception {
    String name = "late-" + System.nanoTime();
    LockClient a = client("", new Counter(), Duration.ofSeconds(30));
    LockClient b = client("", new Counter(), Duration.ofSeconds(30));
    Lease first = a.lock(name, Duration.ofMillis(300)).acquire();
    CountDownLatch lost = new CountDownLatch(1);
    first.lost().thenRun(lost::countDown);
    Lease second = b.lock(name).acquire(Duration.ofSeconds(5));
    assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
    long ttlBefore = server.admin().sync().pttl("dlock:{" + name + "}:lock");
    assertThatThrownBy(first::close).isInstanceOf(dev.dlock.LeaseLostException.class);
    assertThat(b.inspect(name)).get().extracting(LockInfo::token).isEqualTo(second.token());
    long ttlAfter = server.admin().sync().pttl("dlock:{" + name + "}:lock");
    assertThat(ttlAfter).as("the holder's time left after the late release")
        .isGreaterThan(ttlBefore - 1000).isLessThanOrEqualTo(30_000);
    second.close();
  }
}
