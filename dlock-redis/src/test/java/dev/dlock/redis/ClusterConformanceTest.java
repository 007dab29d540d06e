package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.spi.LockInfo;
import dev.dlock.testkit.FairLockConformanceSuite;
import dev.dlock.testkit.LockConformanceSuite;
import dev.dlock.testkit.ReadWriteLockConformanceSuite;
import dev.dlock.testkit.SemaphoreConformanceSuite;
import dev.dlock.testkit.StateLossCases;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Every conformance suite on a Redis Cluster of three masters and three replicas, each client
 * opened by a {@code redis-cluster://} URL; the exclusive suite also with {@code waitReplicas=1}.
 */
// Beside the module's other classes, as it spends its time on servers of its own; its
// cases one after another (the lock makes them share the class's thread).
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("the class's own Redis Cluster")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterConformanceTest {
  private ClusterServers servers;

  @BeforeAll
  void start() {
    servers = ClusterServers.start();
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
      return builder("prefix=cluster:");
    }

    @Override
    public void forget(String name) {
      servers.forget("cluster:", name);
    }
  }

  @Nested
  class ExclusiveWithReplicaAcknowledgement extends LockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("prefix=cluster-wait:&waitReplicas=1&waitTimeout=2s");
    }
  }

  @Nested
  class Fair extends FairLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("prefix=cluster-fair:");
    }
  }

  @Nested
  class ReadWrite extends ReadWriteLockConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("prefix=cluster-rw:");
    }
  }

  @Nested
  class Semaphore extends SemaphoreConformanceSuite {
    @Override
    protected LockClientBuilder newClientBuilder() {
      return builder("prefix=cluster-sem:");
    }
  }

  /** What the suites do not reach: leases spread over every master, renewed and listed. */
  @Nested
  class AcrossSlots {
    @Test
    void leasesOnEveryMasterAreRenewedAndListed() throws Exception {
      Duration lease = Duration.ofMillis(1500);
      Counter events = new Counter();
      Keys keys = new Keys("cluster-slots:");
      List<Lease> held = new ArrayList<>();
      Set<Integer> slots = new HashSet<>();
      try (LockClient client = builder("prefix=cluster-slots:").leaseTime(lease).listener(events).build()) {
        for (int i = 0; i < 12; i++) {
          held.add(client.lock("job-" + i).acquire());
          slots.add(SlotHash.getSlot(keys.lock("job-" + i)));
        }
        assertThat(slots).hasSizeGreaterThan(1);
        assertThat(events.await("renewed", 2 * held.size(), lease.multipliedBy(4)))
            .as("two renewal rounds of every lease").isTrue();
        assertThat(held).allMatch(Lease::isValid);
        assertThat(client.inspectAll()).extracting(LockInfo::name)
            .containsExactlyInAnyOrderElementsOf(held.stream().map(Lease::name).toList());
        for (Lease l : held) {
          l.close();
        }
        assertThat(client.inspectAll()).isEmpty();
      }
    }

    @Test
    void aTokenReachesTheReplicaAsTheMasterDrewIt() throws Exception {
      servers.assertTokenReplicatedAsDrawn("cluster-replicated:");
    }

    @Test
    void aGrantWaitsForTheReplicaOfTheLocksOwnMaster() throws Exception {
      try (LockClient strict = builder("prefix=cluster-stall:&waitReplicas=1&waitTimeout=300ms").build()) {
        strict.lock("stalled").acquire().close();
        int slot = SlotHash.getSlot(new Keys("cluster-stall:").lock("stalled"));
        RedisClusterClient admin = RedisClusterClient.create(RedisURI.create(servers.seed()));
        try {
          Partitions partitions = admin.getPartitions();
          RedisClusterNode master = partitions.getMasterBySlot(slot);
          RedisClusterNode replica = partitions.stream()
              .filter(n -> master.getNodeId().equals(n.getSlaveOf())).findFirst().orElseThrow();
          // The replica of that master cannot answer for 3 s: a WAIT on a connection that had
          // written nothing would pass at once.
          RedisTestServer.stall(replica.getUri().getPort(), 3);
          assertThatThrownBy(() -> strict.lock("stalled").acquire(Duration.ofSeconds(5)))
              .isInstanceOf(BackendUnavailableException.class)
              .hasMessageContaining("fewer than 1 replica(s) acknowledged the grant of lock 'stalled'");
        } finally {
          admin.shutdown();
        }
      }
    }
  }
}
