package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import dev.dlock.testkit.RecordingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The fair lock's queue order, its crashed and frozen waiters, and its cost, on a real redis-server. */
class RedisFairLockTest {
  @RegisterExtension
  static final RedisTestServer server = RedisTestServer.perClass();
  @RegisterExtension
  final TestClients clients = new TestClients();
  private final ExecutorService threads = clients.threads();

  private LockClient client(Counter counter) {
    return clients.client(server, counter);
  }

  @Test
  void eightStaggeredClientsAreGrantedInTheOrderTheyCame() throws Exception {
    String name = "fifo-" + System.nanoTime();
    Lease held = client(new Counter()).fairLock(name).acquire();
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Future<Long>> tokens = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      int me = i;
      Counter events = new Counter();
      DistributedLock lock = client(events).fairLock(name);
      tokens.add(threads.submit(() -> {
        try (Lease lease = lock.acquire(Duration.ofSeconds(60))) {
          order.add(me);
          return lease.token();
        }
      }));
      assertThat(events.await("waited", 1, Duration.ofSeconds(10))).as("waiter %d queued", i).isTrue();
    }
    held.close();
    long last = held.token();
    for (Future<Long> t : tokens) {
      long token = t.get(30, TimeUnit.SECONDS);
      assertThat(token).isGreaterThan(last);
      last = token;
    }
    assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
  }

  @Test
  void anAbandonedWaiterIsPassedOverAtOnce() throws Exception {
    clients.assertDeadWaiterIsPassedOver(server, "abandoned-" + System.nanoTime(), LockClient::fairLock);
  }


  @Test
  void aFrozenWaiterAtTheHeadStallsTheQueueNoLongerThanTheWaiterTimeout() throws Exception {
    String name = "frozen-" + System.nanoTime();
    Lease held = client(new Counter()).fairLock(name).acquire();
    // Connected and listening, but it never asks again: a paused or crashed process whose
    // connections the server has not noticed.
    RedisBackend frozen = RedisBackend.open(RedisUrl.parse(server.url()), RedisBackend.WAITER_TIMEOUT);
    RecordingContext told = new RecordingContext("frozen-client");
    frozen.start(told);
    try {
      long queuedAt = System.nanoTime();
      assertThat(frozen.tryAcquire(new LockRequest(name, LockKind.FAIR, 1, "frozen-client:1",
          Duration.ofSeconds(30), true, null)).isGranted()).isFalse();
      Counter nextEvents = new Counter();
      DistributedLock next = client(nextEvents).fairLock(name);
      Future<Long> nextToken = clients.tokenOf(next, Duration.ofSeconds(60));
      assertThat(nextEvents.await("waited", 1, Duration.ofSeconds(10))).isTrue();
      held.close();
      assertThat(told.nextWakeUp(Duration.ofSeconds(5))).as("the head of the queue is told").isEqualTo(name);
      assertThat(nextToken.get(RedisBackend.WAITER_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS))
          .isGreaterThan(held.token());
      assertThat(Duration.ofNanos(System.nanoTime() - queuedAt))
          .as("time from the frozen waiter's last ask to the next waiter's grant")
          .isGreaterThanOrEqualTo(RedisBackend.WAITER_TIMEOUT.minusMillis(100))
          .isLessThan(RedisBackend.WAITER_TIMEOUT.plusSeconds(3));
    } finally {
      frozen.abandon();
    }
  }

  @Test
  void anUncontendedCycleSendsTwoCommands() throws Exception {
    DistributedLock lock = client(new Counter()).fairLock("cost-" + System.nanoTime());
    lock.acquire().close();
    int cycles = 50;
    Map<String, Long> before = server.commandCalls();
    for (int i = 0; i < cycles; i++) {
      lock.acquire().close();
    }
    long n = cycles;
    // Inside: each script first checks its five keys (two GETs, three TYPEs); then the acquire reads
    // the owner and the queue, sets the owner, clears any pushed-grant mark of the owner and draws the
    // token (GET, TIME, SET, HDEL), and the release
    // reads the owner, deletes it and its pushed-grant mark, and looks for a queue.
    assertThat(server.callsSince(before)).as("commands run by the server per %d cycles", cycles)
        .containsExactlyInAnyOrderEntriesOf(Map.of("evalsha", 2 * n, "get", 7 * n, "type", 6 * n,
            "exists", 2 * n, "set", 2 * n, "time", n, "del", n, "hdel", 2 * n));
  }
}
