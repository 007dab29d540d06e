package dev.dlock.redis;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedSemaphore;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.internal.Abandonable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Permits of a crashed holder, who a returned permit wakes, and the cost, on a real redis-server. */
class RedisSemaphoreTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  @RegisterExtension
  static final RedisTestServer server = RedisTestServer.perClass();
  @RegisterExtension
  final TestClients clients = new TestClients();
  private final ExecutorService threads = clients.threads();

  private LockClient client(Counter counter, Duration lease) {
    LockClient c = LockClient.builder().url(server.url()).listener(counter).leaseTime(lease)
        .maxPollInterval(Duration.ofHours(1)).build();
    clients.add(c);
    return c;
  }

  @Test
  void theLeasesOfACrashedHolderRunOutAndAWaiterGetsItsPermit() throws Exception {
    String name = "crash-" + System.nanoTime();
    Duration lease = Duration.ofSeconds(1);
    LockClient doomed = client(new Counter(), lease);
    DistributedSemaphore s = doomed.semaphore(name, 2);
    Lease a = s.tryAcquire().orElseThrow();
    Lease b = s.tryAcquire().orElseThrow();
    Counter events = new Counter();
    DistributedSemaphore waiting = client(events, Duration.ofSeconds(30)).semaphore(name, 2);
    Future<Long> token = threads.submit(() -> {
      try (Lease l = waiting.acquire(WAIT)) {
        return l.token();
      }
    });
    assertThat(events.await("waited", 1, Duration.ofSeconds(10))).isTrue();
    ((Abandonable) doomed).abandon();
    long start = System.nanoTime();
    assertThat(token.get(10, TimeUnit.SECONDS)).isGreaterThan(Math.max(a.token(), b.token()));
    // Renewal stopped with the crash: the permits run out within one lease, and the waiter's
    // retry hint is the time left on the earliest of them.
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(lease.plusSeconds(2));
  }

  @Test
  void aReturnedPermitPublishesToTheOldestWaiterOnly() throws Exception {
    String name = "one-" + System.nanoTime();
    LockClient holder = client(new Counter(), Duration.ofSeconds(30));
    Lease a = holder.semaphore(name, 2).tryAcquire().orElseThrow();
    Lease b = holder.semaphore(name, 2).tryAcquire().orElseThrow();
    CountDownLatch done = new CountDownLatch(1);
    List<Counter> events = new ArrayList<>();
    List<Future<Long>> tokens = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Counter e = new Counter();
      events.add(e);
      DistributedSemaphore s = client(e, Duration.ofSeconds(30)).semaphore(name, 2);
      tokens.add(threads.submit(() -> {
        try (Lease l = s.acquire(WAIT)) {
          done.await();
          return l.token();
        }
      }));
      assertThat(e.await("waited", 1, Duration.ofSeconds(10))).as("waiter %d queued", i).isTrue();
    }
    Map<String, Long> before = server.commandCalls();
    a.close();
    assertThat(events.get(0).await("acquired", 1, Duration.ofSeconds(10))).isTrue();
    b.close();
    assertThat(events.get(1).await("acquired", 1, Duration.ofSeconds(10))).isTrue();
    assertThat(server.callsSince(before).get("publish")).as("PUBLISH calls for two returned permits")
        .isEqualTo(2L);
    assertThat(events.get(2).get("woken")).as("wake-ups of the third waiter").isZero();
    assertThat(tokens.get(2)).isNotDone();
    done.countDown();
    long first = tokens.get(0).get(10, TimeUnit.SECONDS);
    long second = tokens.get(1).get(10, TimeUnit.SECONDS);
    assertThat(first).isGreaterThan(b.token());
    assertThat(second).isGreaterThan(first);
    assertThat(tokens.get(2).get(10, TimeUnit.SECONDS)).isGreaterThan(second);
  }

  @Test
  void anUncontendedCycleSendsTwoCommands() throws Exception {
    DistributedSemaphore s = client(new Counter(), Duration.ofSeconds(30))
        .semaphore("cost-" + System.nanoTime(), 3);
    s.acquire().close();
    int cycles = 50;
    long n = cycles;
    Map<String, Long> before = server.commandCalls();
    for (int i = 0; i < cycles; i++) {
      s.acquire().close();
    }
    // Each script first checks its five keys (five TYPEs, and HLEN and HGETALL of the hash); the
    // acquire draws the token from the hash (HGET, TIME, HSET); the acquire and the release delete
    // the owner's pushed-grant mark. The server's clock is read once per script.
    assertThat(server.callsSince(before)).as("commands run by the server per %d cycles", cycles)
        .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(entry("evalsha", 2 * n), entry("time", 2 * n),
            entry("type", 10 * n), entry("hdel", 2 * n), entry("hlen", 2 * n), entry("hgetall", 2 * n),
            entry("zremrangebyscore", n), entry("zcard", n), entry("exists", 2 * n), entry("hget", 2 * n),
            entry("zadd", n), entry("pttl", n), entry("pexpire", n), entry("hset", n),
            entry("zscore", n), entry("zrem", n)));
  }
}
