package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.internal.Abandonable;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockRequest;
import dev.dlock.testkit.RecordingContext;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One wake-up per release, and waiters that die or freeze while queued, on a real redis-server. */
class RedisWaitingTest {
  @RegisterExtension
  static final RedisTestServer server = RedisTestServer.perClass();
  @RegisterExtension
  final TestClients clients = new TestClients();
  private final ExecutorService threads = clients.threads();

  private LockClient client(Counter counter) {
    return clients.client(server, counter);
  }

  @Test
  void eachReleaseWakesOneClientAndCausesNoHerdOfRetries() throws Exception {
    int clientCount = 5;
    int threadsPerClient = 20;
    int waiters = clientCount * threadsPerClient;
    String name = "herd-" + System.nanoTime();
    Counter holderEvents = new Counter();
    Lease held = client(holderEvents).lock(name).acquire();
    List<Counter> counters = new ArrayList<>();
    List<Future<Long>> tokens = new ArrayList<>();
    for (int i = 0; i < clientCount; i++) {
      Counter counter = new Counter();
      counters.add(counter);
      DistributedLock lock = client(counter).lock(name);
      for (int t = 0; t < threadsPerClient; t++) {
        tokens.add(clients.tokenOf(lock, Duration.ofSeconds(60)));
      }
    }
    for (Counter c : counters) {
      assertThat(c.await("waited", threadsPerClient, Duration.ofSeconds(10))).isTrue();
    }
    Map<String, Long> before = server.commandCalls();
    long start = System.nanoTime();
    held.close();
    Set<Long> seen = new HashSet<>();
    for (Future<Long> f : tokens) {
      seen.add(f.get(30, TimeUnit.SECONDS));
    }
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) + 1;
    Map<String, Long> after = server.commandCalls();
    assertThat(seen).hasSize(waiters).allMatch(t -> t > held.token());

    int woken = counters.stream().mapToInt(c -> c.get("woken")).sum();
    int releases = counters.stream().mapToInt(c -> c.get("released")).sum() + 1;
    int grants = counters.stream().mapToInt(c -> c.get("acquired")).sum();
    long publishes = after.getOrDefault("publish", 0L) - before.getOrDefault("publish", 0L);
    long evalsha = after.get("evalsha") - before.get("evalsha");
    long attempts = evalsha - releases;
    assertThat(grants).isEqualTo(waiters);
    assertThat(publishes).as("PUBLISH calls: at most one per release").isLessThanOrEqualTo(releases);
    assertThat(woken).as("clients woken: exactly one per PUBLISH").isEqualTo((int) publishes);
    // A client's twenty threads hold the lock at most sixteen in a row (a grant from the server, then
    // at most fifteen hand-offs inside the client), so every client is woken by another's release twice.
    assertThat(publishes).as("releases that handed over to another client")
        .isGreaterThanOrEqualTo(2L * clientCount);
    // One grant per waiter, plus at most one refused try per release (the releasing client's next
    // thread finds the lock reserved for another client), plus about one retry per queued client
    // and second. A herd would be one try per client per release.
    assertThat(attempts).as("acquire attempts for %d grants in %d s", grants, seconds)
        .isLessThanOrEqualTo(2L * grants + (long) clientCount * seconds + clientCount);
  }

  @Test
  void aWaiterWhoseWakeUpIsLostStillAcquiresWithinASecondOfTheRelease() throws Exception {
    String name = "lost-wake-up-" + System.nanoTime();
    Lease held = client(new Counter()).lock(name).acquire();
    Counter waiterEvents = new Counter();
    // No polling of its own: only the backend's retry hint can move it without a wake-up.
    LockClient waiting = LockClient.builder().url(server.url()).listener(waiterEvents)
        .maxPollInterval(Duration.ofHours(1)).build();
    clients.add(waiting);
    Future<Long> token = threads.submit(() -> {
      try (Lease lease = waiting.lock(name).acquire(Duration.ofSeconds(60))) {
        return lease.token();
      }
    });
    assertThat(waiterEvents.await("waited", 1, Duration.ofSeconds(5))).isTrue();
    // Lose the wake-up: the release finds no queued waiter, so it tells nobody.
    server.admin().sync().del("dlock:{" + name + "}:queue", "dlock:{" + name + "}:alive");
    long start = System.nanoTime();
    held.close();
    assertThat(token.get(5, TimeUnit.SECONDS)).isGreaterThan(held.token());
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time from the release to the grant")
        .isLessThan(RedisBackend.WAITER_TIMEOUT.dividedBy(3).plusMillis(1500));
    assertThat(waiterEvents.get("woken")).isZero();
  }

  @Test
  void anAbandonedClientsWaiterDoesNotStallTheLock() throws Exception {
    clients.assertDeadWaiterIsPassedOver(server, "abandoned-" + System.nanoTime(), LockClient::lock);
  }


  @Test
  void aWaiterKilledWhileQueuedIsSkippedAtOnce() throws Exception {
    String name = "killed-" + System.nanoTime();
    Lease held = client(new Counter()).lock(name).acquire();
    // A waiter whose process dies: its connections drop, nothing is cleaned up.
    RedisBackend killed = RedisBackend.open(RedisUrl.parse(server.url()), RedisBackend.WAITER_TIMEOUT);
    killed.start(new RecordingContext("killed-client"));
    assertThat(killed.tryAcquire(LockRequest.exclusive(name, "killed-client:1", Duration.ofSeconds(30), true)).isGranted()).isFalse();
    Counter nextEvents = new Counter();
    DistributedLock next = client(nextEvents).lock(name);
    Future<Long> nextToken = clients.tokenOf(next, Duration.ofSeconds(60));
    assertThat(nextEvents.await("waited", 1, Duration.ofSeconds(5))).isTrue();
    assertThat(server.admin().sync().zcard("dlock:{" + name + "}:queue")).isEqualTo(2);
    killed.abandon();
    server.awaitNoListener("killed-client", Duration.ofSeconds(5));
    long start = System.nanoTime();
    held.close();
    assertThat(nextToken.get(RedisBackend.WAITER_TIMEOUT.toSeconds() + 3, TimeUnit.SECONDS))
        .isGreaterThan(held.token());
    // Nobody listens on the dead client's channel, so the release passes it over at once.
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    assertThat(nextEvents.get("woken")).isEqualTo(1);
  }

  @Test
  void aFrozenWaiterHoldsUpTheLockNoLongerThanTheWaiterTimeout() throws Exception {
    String name = "frozen-" + System.nanoTime();
    Lease held = client(new Counter()).lock(name).acquire();
    // A stopped process (SIGSTOP): its socket stays subscribed, so a release picks it and its
    // PUBLISH counts one listener, but nothing in the process acts any more. The waiter queues
    // through a real backend, which then stops all at once; a bare subscriber keeps its channel.
    RedisBackend frozen = RedisBackend.open(RedisUrl.parse(server.url()), RedisBackend.WAITER_TIMEOUT);
    frozen.start(new RecordingContext("frozen-client"));
    RedisClient raw = RedisClient.create(RedisURI.create(server.url()));
    StatefulRedisPubSubConnection<String, String> socket = raw.connectPubSub();
    try {
      Attempt a = frozen.tryAcquire(LockRequest.exclusive(name, "frozen-client:1", Duration.ofSeconds(30), true));
      assertThat(a.isGranted()).isFalse();
      BlockingQueue<String> published = new LinkedBlockingQueue<>();
      socket.addListener(new RedisPubSubAdapter<>() {
        @Override
        public void message(String channel, String message) {
          published.add(message);
        }
      });
      socket.sync().subscribe(new String(new Keys(RedisUrl.parse(server.url()).prefix()).channel("frozen-client"), StandardCharsets.UTF_8));
      frozen.abandon();
      Counter nextEvents = new Counter();
      DistributedLock next = client(nextEvents).lock(name);
      Future<Long> nextToken = clients.tokenOf(next, Duration.ofSeconds(60));
      assertThat(nextEvents.await("waited", 1, Duration.ofSeconds(5))).isTrue();
      long start = System.nanoTime();
      held.close();
      String message = published.poll(5, TimeUnit.SECONDS);
      assertThat(message).as("the pushed grant's message: seq, token, name")
          .matches("1 \\d+ \\Q" + name + "\\E");
      long pushedToken = Long.parseLong(message.split(" ")[1]);
      assertThat(pushedToken).isGreaterThan(held.token());
      assertThat(nextToken.get(RedisBackend.WAITER_TIMEOUT.toSeconds() + 3, TimeUnit.SECONDS))
          .isGreaterThan(pushedToken);
      Duration stalled = Duration.ofNanos(System.nanoTime() - start);
      assertThat(stalled).as("time the grant pushed to the frozen waiter held the lock")
          .isGreaterThanOrEqualTo(RedisBackend.WAITER_TIMEOUT.minusMillis(100))
          .isLessThan(RedisBackend.WAITER_TIMEOUT.plusSeconds(2));
    } finally {
      socket.close();
      raw.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      frozen.close();
    }
  }


  /**
   * The lab's kill -9 of a holder inside its critical section, where the holder took its grant from a
   * release's push (as nearly every grant is under contention) and died before its first renewal.
   * The pushed grant must lapse with the taker's own lease (1 s), not the longer waiter timeout, or
   * the other clients, timing out and asking again, are locked out until that timeout runs out.
   */
  @Test
  void aPushedGrantWhoseTakerDiesLapsesWithTheTakersLease() throws Exception {
    String name = "pushed-then-killed-" + System.nanoTime();
    Duration lease = Duration.ofSeconds(1);
    assertThat(lease).as("the case needs a lease shorter than the waiter timeout")
        .isLessThan(RedisBackend.WAITER_TIMEOUT);
    Lease held = client(new Counter()).lock(name).acquire();
    Counter dyingEvents = new Counter();
    LockClient dying = clients.add(LockClient.builder().url(server.url()).leaseTime(lease)
        .listener(dyingEvents).build());
    Future<Long> takenAt = threads.submit(() -> {
      dying.lock(name).acquire(Duration.ofSeconds(60));
      long at = System.nanoTime();
      // Killed at once, before the watchdog's first renewal (a third of the lease later).
      ((Abandonable) dying).abandon();
      return at;
    });
    assertThat(dyingEvents.await("waited", 1, Duration.ofSeconds(10))).isTrue();
    held.close();
    long taken = takenAt.get(10, TimeUnit.SECONDS);
    assertThat(dyingEvents.get("woken")).as("the grant came by the release's push").isEqualTo(1);
    assertThat(dyingEvents.get("renewed")).as("renewals before the kill").isZero();

    // Two survivors, as in the lab: each tries for 1 s, gives up (its wait is cancelled) and asks again.
    AtomicLong grantedAt = new AtomicLong();
    CountDownLatch granted = new CountDownLatch(1);
    AtomicBoolean stop = new AtomicBoolean();
    List<Future<?>> survivors = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      DistributedLock lock = clients.add(LockClient.builder().url(server.url()).leaseTime(lease)
          .build()).lock(name);
      survivors.add(threads.submit(() -> {
        while (!stop.get()) {
          Optional<Lease> l = lock.tryAcquire(Duration.ofSeconds(1));
          if (l.isPresent()) {
            grantedAt.compareAndSet(0, System.nanoTime());
            granted.countDown();
            l.get().close();
            return null;
          }
        }
        return null;
      }));
    }
    try {
      assertThat(granted.await(10, TimeUnit.SECONDS)).as("a survivor got the lock").isTrue();
      // The dead holder's grant ends at most its lease after it was taken; a survivor asks again
      // at once then (its retry hint is the time left), so a second past the lease is generous.
      // Held for the waiter timeout instead, the lock comes free only about 3 s after it was taken.
      assertThat(Duration.ofNanos(grantedAt.get() - taken)).as("time from the dead holder's grant to the next")
          .isLessThan(lease.plusSeconds(1));
    } finally {
      stop.set(true);
      for (Future<?> f : survivors) {
        f.get(10, TimeUnit.SECONDS);
      }
    }
  }

  /** A backend whose owner {@code clientId:1} queued for a held lock that was then released. */
  private record Woken(RedisBackend backend, long heldToken) {}

  private Woken wokenWaiter(String name, String clientId) throws Exception {
    Lease held = client(new Counter()).lock(name).acquire();
    RedisBackend waiter = RedisBackend.open(RedisUrl.parse(server.url()), RedisBackend.WAITER_TIMEOUT);
    RecordingContext context = new RecordingContext(clientId);
    waiter.start(context);
    assertThat(waiter.tryAcquire(LockRequest.exclusive(name, clientId + ":1", Duration.ofSeconds(30), true)).isGranted()).isFalse();
    held.close();
    // By the time the engine hears of it, the grant the release pushed is recorded for the waiter.
    assertThat(context.nextWakeUp(Duration.ofSeconds(5))).isEqualTo(name);
    return new Woken(waiter, held.token());
  }

  @Test
  void aReleaseGrantsTheWokenWaiterForTheWaiterTimeoutCountedFromItsLastTry() throws Exception {
    String name = "pushed-" + System.nanoTime();
    Woken w = wokenWaiter(name, "pushed");
    try {
      Attempt a = w.backend().tryAcquire(LockRequest.exclusive(name, "pushed:1", Duration.ofSeconds(30), true));
      assertThat(a.isGranted()).isTrue();
      assertThat(a.token()).as("the token the release drew, the last one drawn")
          .isGreaterThan(w.heldToken()).isEqualTo(server.counter(name));
      assertThat(a.validity()).as("the waiter timeout, counted from the waiter's last try")
          .hasValueSatisfying(v -> assertThat(v).isLessThanOrEqualTo(RedisBackend.WAITER_TIMEOUT)
              .isGreaterThan(RedisBackend.WAITER_TIMEOUT.minusSeconds(2)));
      assertThat(w.backend().inspect(name)).hasValueSatisfying(i -> {
        assertThat(i.owner()).isEqualTo("pushed:1");
        assertThat(i.token()).isEqualTo(a.token());
      });
      Grant g = new Grant(name, "pushed:1", a.token());
      assertThat(w.backend().renew(List.of(g), Duration.ofSeconds(30))).as("lost at the renewal").isEmpty();
      assertThat(w.backend().inspect(name)).hasValueSatisfying(i -> assertThat(i.remaining())
          .as("a whole lease after the first renewal").isGreaterThan(Duration.ofSeconds(20)));
    } finally {
      w.backend().close();
    }
  }


  @Test
  void aPushedGrantIsExtendedToTheWaitersWholeLease() throws Exception {
    // A watchdog lock is renewed at once after the push; a fixed lease is extended before lock() returns.
    for (Duration fixed : new Duration[] {null, Duration.ofSeconds(20)}) {
      String name = "extended-" + System.nanoTime();
      Lease held = client(new Counter()).lock(name).acquire();
      Counter events = new Counter();
      LockClient waiter = client(events);
      DistributedLock lock = fixed == null ? waiter.lock(name) : waiter.lock(name, fixed);
      CompletableFuture<Long> acquired = new CompletableFuture<>();
      CountDownLatch checked = new CountDownLatch(1);
      Future<?> holder = threads.submit(() -> {
        try (Lease lease = lock.acquire(Duration.ofSeconds(60))) {
          acquired.complete(lease.token());
          checked.await();
        }
        return null;
      });
      assertThat(events.await("waited", 1, Duration.ofSeconds(5))).isTrue();
      held.close();
      assertThat(acquired.get(10, TimeUnit.SECONDS)).as("the token the release drew, the last one drawn")
          .isGreaterThan(held.token()).isEqualTo(server.counter(name));
      if (fixed == null) {
        assertThat(events.await("renewed", 1, Duration.ofSeconds(5))).as("the first renewal").isTrue();
      }
      assertThat(waiter.inspect(name)).hasValueSatisfying(i -> assertThat(i.remaining())
          .as("time left for %s", fixed == null ? "the watchdog lock" : "the fixed lease")
          .isGreaterThan(RedisBackend.WAITER_TIMEOUT.plusSeconds(5)));
      checked.countDown();
      holder.get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aWaiterThatGivesUpJustAsItIsWokenLeavesNothingHeld() throws Exception {
    String name = "quits-" + System.nanoTime();
    Woken w = wokenWaiter(name, "quitter");
    try {
      w.backend().cancel(name, "quitter:1");
      assertThat(client(new Counter()).lock(name).tryAcquire()).as("the lock once the woken waiter gave up")
          .hasValueSatisfying(Lease::close);
    } finally {
      w.backend().close();
    }
  }
}
