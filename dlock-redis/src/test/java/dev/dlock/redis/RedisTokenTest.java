package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.Grant;
import dev.dlock.testkit.RecordingContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fencing tokens of every kind after the server lost a lock's counter, as a restart without
 * persistence or a failover that beat replication does: each next token, however it is granted,
 * is above every earlier one.
 */
class RedisTokenTest {
  private static final String PREFIX = "tokens:";

  @RegisterExtension
  static final RedisTestServer server = RedisTestServer.perClass();
  @RegisterExtension
  final TestClients clients = new TestClients();

  private LockClient client(Counter events) {
    return clients.add(LockClient.builder().url(url()).listener(events).build());
  }

  private static String url() {
    return server.url() + "?prefix=" + PREFIX;
  }

  @Test
  void everyKindDrawsAboveItsEarlierTokensAfterTheServerForgetsIt() {
    LockClient c = client(new Counter());
    Map<String, Function<String, Optional<Lease>>> kinds = new LinkedHashMap<>();
    kinds.put("exclusive", n -> c.lock(n).tryAcquire());
    kinds.put("fair", n -> c.fairLock(n).tryAcquire());
    kinds.put("read", n -> c.readWriteLock(n).readLock().tryAcquire());
    kinds.put("write", n -> c.readWriteLock(n).writeLock().tryAcquire());
    kinds.put("permit", n -> c.semaphore(n, 2).tryAcquire());
    SoftAssertions.assertSoftly(soft -> kinds.forEach((kind, take) -> {
      String name = kind + "-" + System.nanoTime();
      long highest = 0;
      for (int i = 0; i < 3; i++) {
        try (Lease earlier = take.apply(name).orElseThrow()) {
          highest = Math.max(highest, earlier.token());
        }
      }
      server.forget(PREFIX, name);
      try (Lease next = take.apply(name).orElseThrow()) {
        soft.assertThat(next.token()).as("the first %s token after the server forgot the lock", kind)
            .isGreaterThan(highest);
      }
    }));
  }

  @Test
  void theGrantAReleasePushesToAWaiterDrawsAboveTheReleasedOne() throws Exception {
    String name = "pushed-" + System.nanoTime();
    Lease held = client(new Counter()).lock(name).acquire();
    Counter waiterEvents = new Counter();
    Future<Long> waited = clients.tokenOf(client(waiterEvents).lock(name), Duration.ofSeconds(30));
    assertThat(waiterEvents.await("waited", 1, Duration.ofSeconds(10))).isTrue();
    forgetCounter(name);
    held.close();
    assertThat(waited.get(10, TimeUnit.SECONDS)).as("the waiter's token, against %d released", held.token())
        .isGreaterThan(held.token());
    assertThat(waiterEvents.get("woken")).as("the waiter was woken by the release's push").isEqualTo(1);
  }

  @Test
  void anExclusiveGrantLeavesTokensSpareForHandOffsInItsClient() {
    String name = "spare-" + System.nanoTime();
    RedisBackend backend = RedisBackend.open(RedisUrl.parse(url()), RedisBackend.WAITER_TIMEOUT);
    try {
      backend.start(new RecordingContext("spare"));
      // A counter ahead of the server's clock, so that only the spare tokens keep grants apart.
      server.admin().sync().set(new String(new Keys(PREFIX).of(name)[1], StandardCharsets.UTF_8),
          "5000000000000000");
      Attempt first = backend.tryAcquire(LockRequest.exclusive(name, "spare:1", Duration.ofSeconds(30), false));
      assertThat(first.isGranted()).isTrue();
      assertThat(backend.release(new Grant(name, "spare:1", first.token()))).isTrue();
      Attempt next = backend.tryAcquire(LockRequest.exclusive(name, "spare:2", Duration.ofSeconds(30), false));
      assertThat(next.token()).as("the next grant, against %d", first.token())
          .isGreaterThan(first.token() + backend.spareTokens());
    } finally {
      backend.close();
    }
  }

  /** Deletes only the exclusive lock's token counter, as a failover that lost its last writes may. */
  private static void forgetCounter(String name) {
    server.admin().sync().del(new String(new Keys(PREFIX).of(name)[1], StandardCharsets.UTF_8));
  }
}
