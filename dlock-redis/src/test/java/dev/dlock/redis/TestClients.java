package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.internal.Abandonable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The clients and threads one test opens, closed after it: register it as an instance field with
 * {@code @RegisterExtension}, so every test class shares this bookkeeping instead of repeating it.
 */
final class TestClients implements AfterEachCallback {
  private final List<LockClient> clients = new CopyOnWriteArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  /** Closes {@code client} after the test; returns it. */
  LockClient add(LockClient client) {
    clients.add(client);
    return client;
  }

  /** A client of {@code server} reporting to {@code events}, closed after the test. */
  LockClient client(RedisTestServer server, Counter events) {
    return add(LockClient.builder().url(server.url()).listener(events).build());
  }

  /**
   * A waiter whose client dies while queued (abandoned: connections dropped, nothing cleaned up),
   * with another client waiting behind it: the holder's release passes the dead one over at once,
   * since nobody listens on its channel, and wakes the next client exactly once. {@code lockOf}
   * picks the kind of lock, by name, from a client.
   */
  void assertDeadWaiterIsPassedOver(RedisTestServer server, String name,
      BiFunction<LockClient, String, DistributedLock> lockOf) throws Exception {
    Lease held = lockOf.apply(client(server, new Counter()), name).acquire();
    Counter killedEvents = new Counter();
    LockClient killed = client(server, killedEvents);
    threads.submit(() -> lockOf.apply(killed, name).acquire(Duration.ofSeconds(60)));
    assertThat(killedEvents.await("waited", 1, Duration.ofSeconds(10))).isTrue();
    Counter nextEvents = new Counter();
    Future<Long> nextToken = tokenOf(lockOf.apply(client(server, nextEvents), name), Duration.ofSeconds(60));
    assertThat(nextEvents.await("waited", 1, Duration.ofSeconds(10))).isTrue();
    ((Abandonable) killed).abandon();
    server.awaitNoListener(killed.id(), Duration.ofSeconds(5));
    long start = System.nanoTime();
    held.close();
    assertThat(nextToken.get(10, TimeUnit.SECONDS)).isGreaterThan(held.token());
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    assertThat(nextEvents.get("woken")).isEqualTo(1);
  }

  /** Threads for the test's blocking steps, stopped after it. */
  ExecutorService threads() {
    return threads;
  }

  /** Acquires {@code lock} on a test thread, waiting up to {@code wait}; the grant's token, released. */
  Future<Long> tokenOf(DistributedLock lock, Duration wait) {
    return threads.submit(() -> {
      try (Lease lease = lock.acquire(wait)) {
        return lease.token();
      }
    });
  }

  @Override
  public void afterEach(ExtensionContext context) {
    clients.forEach(LockClient::close);
    threads.shutdownNow();
  }
}
