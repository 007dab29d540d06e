package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.FairLockConformanceSuite;
import dev.dlock.testkit.LockConformanceSuite;
import dev.dlock.testkit.ReadWriteLockConformanceSuite;
import dev.dlock.testkit.SemaphoreConformanceSuite;
import dev.dlock.testkit.StateLossCases;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Every conformance suite on a Redis 7 Cluster, which shards pub/sub: releases publish with
 * SPUBLISH to the waiting client's channel in the lock's own slot.
 */
// Beside the module's other classes, as it spends its time on servers of its own; its
// cases one after another (the lock makes them share the class's thread).
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("the class's own sharded Redis Cluster")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShardedClusterConformanceTest {
  private ClusterServers servers;

  @BeforeAll
  void start() {
    servers = ClusterServers.startRedis7();
  }

  @AfterAll
  void stop() {
    servers.close();
  }

  private LockClientBuilder builder(String query) {
    return LockClient.builder().url(servers.url(query));
  }

  @Nested
  class Exclusive extends LockConformanceSuite implements StateLossCases {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("prefix=sharded:");
    }

    @Override
    public void forget(String name) {
      servers.forget("sharded:", name);
    }
  }

  @Nested
  class Fair extends FairLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("prefix=sharded-fair:");
    }
  }

  @Nested
  class ReadWrite extends ReadWriteLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("prefix=sharded-rw:");
    }
  }

  @Nested
  class Semaphore extends SemaphoreConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("prefix=sharded-sem:");
    }
  }

  @Nested
  class Replication {
    @Test
    void aTokenReachesTheReplicaAsTheMasterDrewIt() throws Exception {
      servers.assertTokenReplicatedAsDrawn("sharded-replicated:");
    }
  }

  @Nested
  class Notifications {
    @Test
    void aReleaseWakesTheWaiterWithSpublishOnTheLocksOwnMaster() throws Exception {
      String name = "handed-over";
      int slot = SlotHash.getSlot(new Keys("sharded-n:").lock(name));
      RedisClusterClient admin = RedisClusterClient.create(RedisURI.create(servers.seed()));
      RedisClusterNode master;
      try {
        master = admin.getPartitions().getMasterBySlot(slot);
      } finally {
        admin.shutdown();
      }
      RedisClient node = RedisClient.create(RedisURI.create("127.0.0.1", master.getUri().getPort()));
      Counter events = new Counter();
      try (StatefulRedisConnection<String, String> stats = node.connect();
          LockClient holder = builder("prefix=sharded-n:").build();
          LockClient waiter = builder("prefix=sharded-n:").leaseTime(Duration.ofSeconds(30))
              .listener(events).build()) {
        Lease held = holder.lock(name).acquire();
        stats.sync().configResetstat();
        CountDownLatch granted = new CountDownLatch(1);
        Thread t = new Thread(() -> {
          try (Lease l = waiter.lock(name).acquire(Duration.ofSeconds(10))) {
            granted.countDown();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        t.start();
        // The waiter queues (its refused try is in), and its client subscribes to its channel in
        // the slot, on this master: the subscription alone may come before the try.
        assertThat(events.await("waited", 1, Duration.ofSeconds(10))).as("the waiter waited").isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!stats.sync().info("commandstats").contains("cmdstat_ssubscribe")) {
          assertThat(System.nanoTime()).as("the waiter subscribed within 10 s").isLessThan(deadline);
          Thread.sleep(10);
        }
        held.close();
        assertThat(granted.await(10, TimeUnit.SECONDS)).isTrue();
        t.join();
        String calls = stats.sync().info("commandstats");
        assertThat(calls).contains("cmdstat_spublish").doesNotContain("cmdstat_publish:");
      } finally {
        node.shutdown();
      }
    }
  }
}
