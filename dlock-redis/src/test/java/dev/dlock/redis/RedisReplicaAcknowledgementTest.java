package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.embedded.RedisServer;

/**
 * The replica policy ({@code waitReplicas}): WAIT after each grant and renewal, failing closed,
 * and no WAIT at all when it is off. A master and a replica started by hand, without Sentinel.
 */
class RedisReplicaAcknowledgementTest {

  @Test
  void aGrantTooFewReplicasAcknowledgedIsReleasedAndTheAcquireFails() throws Exception {
    try (RedisTestServer master = RedisTestServer.start();
        LockClient strict = LockClient.builder().url(master.url() + "?waitReplicas=1&waitTimeout=50ms").build();
        LockClient plain = LockClient.builder().url(master.url()).build()) {
      assertThatThrownBy(() -> strict.lock("order").acquire(Duration.ofSeconds(5)))
          .isInstanceOf(BackendUnavailableException.class)
          .hasMessageContaining("fewer than 1 replica(s) acknowledged the grant of lock 'order' within PT0.05S")
          .hasMessageContaining("released");
      try (Lease free = plain.lock("order").tryAcquire().orElseThrow()) {
        assertThat(free.isValid()).isTrue();
      }
    }
  }

  @Test
  void aGrantWaitsForTheReplicaItself() throws Exception {
    try (RedisTestServer master = RedisTestServer.start(); Replica replica = new Replica(master);
        LockClient strict = LockClient.builder().url(master.url() + "?waitReplicas=1&waitTimeout=300ms").build()) {
      strict.lock("warm").acquire().close();
      // A replica that cannot answer for 3 s: a WAIT that counted nothing would pass at once.
      RedisTestServer.stall(replica.port, 3);
      assertThatThrownBy(() -> strict.lock("stalled").acquire(Duration.ofSeconds(5)))
          .isInstanceOf(BackendUnavailableException.class)
          .hasMessageContaining("fewer than 1 replica(s) acknowledged the grant of lock 'stalled'");
    }
  }

  @Test
  void theWaitCostsOneCommandPerGrantAndNoneWhenThePolicyIsOff() throws Exception {
    try (RedisTestServer master = RedisTestServer.start(); Replica replica = new Replica(master)) {
      try (LockClient off = LockClient.builder().url(master.url()).build();
          LockClient on = LockClient.builder().url(master.url() + "?waitReplicas=1&waitTimeout=2s").build()) {
        off.lock("warm").tryAcquire().orElseThrow().close();
        on.lock("warm").tryAcquire().orElseThrow().close();

        Map<String, Long> before = master.commandCalls();
        off.lock("a").acquire().close();
        assertThat(master.callsSince(before)).doesNotContainKey("wait").containsEntry("evalsha", 2L);

        before = master.commandCalls();
        try (Lease held = on.lock("b").acquire()) {
          assertThat(held.isValid()).isTrue();
        }
        assertThat(master.callsSince(before)).containsEntry("wait", 1L).containsEntry("evalsha", 2L);
      }
    }
  }

  @Test
  void aRenewalTooFewReplicasAcknowledgedIsNotCountedSoTheLeaseRunsOut() throws Exception {
    Duration lease = Duration.ofSeconds(3);
    try (RedisTestServer master = RedisTestServer.start(); Replica replica = new Replica(master)) {
      try (LockClient on = LockClient.builder().url(master.url() + "?waitReplicas=1&waitTimeout=100ms")
          .leaseTime(lease).build()) {
        Lease held = on.lock("report").acquire();
        replica.close();
        long stopped = System.nanoTime();
        LeaseLostException lost = held.lost().toCompletableFuture()
            .get(lease.plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThan(lease.plusSeconds(2));
        assertThat(lost).isNotNull();
        assertThat(held.isValid()).isFalse();
      }
    }
  }

  /** A replica of {@code master}, ready once the master counts it as connected. */
  private static final class Replica implements AutoCloseable {
    private final RedisServer server;
    private final int port = RedisTestServer.freePort();
    private boolean stopped;

    Replica(RedisTestServer master) throws IOException, InterruptedException {
      server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
          .slaveOf("127.0.0.1", master.port()).setting("save \"\"").setting("appendonly no").build();
      server.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      // Replication has no event to wait on: ask the master every 20 ms.
      while (!master.admin().sync().info("replication").contains("state=online")) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the replica did not come online within 20 s");
        }
        Thread.sleep(20);
      }
    }

    @Override
    public void close() throws IOException {
      if (!stopped) {
        stopped = true;
        server.stop();
      }
    }
  }
}
