package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.spi.LockInfo;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A Sentinel failover while a lock is held: the master's process is stopped, a replica is
 * promoted, and the client follows it. Each test has a topology of its own (a master, two replicas
 * and three Sentinels), as the failover changes it.
 */
// Beside the module's other classes, as it spends its time waiting on servers of its own; its
// cases one after another (the lock makes them share the class's thread).
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("each case's own Sentinel group")
class SentinelFailoverTest {
  private static final Duration LEASE = Duration.ofSeconds(6);
  private static final Duration FAILOVER = Duration.ofSeconds(30);

  @Test
  void theHolderKeepsItsLockOrIsToldItLostIt() throws Exception {
    try (SentinelServers servers = SentinelServers.start(2)) {
      Counter events = new Counter();
      try (LockClient holder = client(servers, "", events);
          LockClient other = client(servers, "", new Counter())) {
        Lease lease = holder.lock("job").acquire();
        servers.killMasterAndAwaitFailover(FAILOVER);
        int renewedBefore = events.get("renewed");
        boolean kept;
        try {
          lease.lost().toCompletableFuture().get(LEASE.toMillis(), TimeUnit.MILLISECONDS);
          kept = false;
        } catch (TimeoutException stillHeld) {
          kept = true;
        }
        if (kept) {
          // Still held: it renewed on the new master, and nobody else gets it.
          assertThat(events.get("renewed")).isGreaterThan(renewedBefore);
          assertThat(lease.isValid()).isTrue();
          assertThat(other.lock("job").tryAcquire()).isEmpty();
          lease.close();
        } else {
          assertThat(lease.isValid()).isFalse();
        }
        // Either way the client works on the new master.
        try (Lease again = other.lock("job").acquire(LEASE.multipliedBy(2))) {
          assertThat(again.isValid()).isTrue();
        }
      }
    }
  }

  @Test
  void withReplicaAcknowledgementAFailoverAfterTheGrantKeepsTheLockAndItsToken() throws Exception {
    try (SentinelServers servers = SentinelServers.start(2)) {
      Counter events = new Counter();
      String policy = "waitReplicas=1&waitTimeout=1s";
      try (LockClient holder = client(servers, policy, events);
          LockClient other = client(servers, policy, new Counter())) {
        Lease lease = holder.lock("job").acquire();
        long token = lease.token();
        servers.killMasterAndAwaitFailover(FAILOVER);

        // The promoted replica had acknowledged the grant: the lock and its token are there.
        Optional<LockInfo> seen = other.inspect("job");
        assertThat(seen).as("the lock on the promoted master").isPresent();
        assertThat(seen.get().token()).isEqualTo(token);
        assertThat(other.lock("job").tryAcquire()).isEmpty();

        // The holder keeps renewing it there, once the remaining replica follows the new master.
        assertThat(events.await("renewed", events.get("renewed") + 1, LEASE.multipliedBy(3)))
            .as("a renewal acknowledged after the failover").isTrue();
        assertThat(lease.isValid()).isTrue();
        lease.close();
        try (Lease next = other.lock("job").acquire(LEASE)) {
          assertThat(next.token()).isGreaterThan(token);
        }
      }
    }
  }

  @Test
  void aFailoverThatLostTheLastGrantStillGivesTheNextHolderAHigherToken() throws Exception {
    try (SentinelServers servers = SentinelServers.start(1)) {
      try (LockClient a = client(servers, "", new Counter());
          LockClient b = client(servers, "", new Counter())) {
        long highest = 0;
        for (int i = 0; i < 3; i++) {
          try (Lease earlier = a.lock("job").acquire()) {
            highest = Math.max(highest, earlier.token());
          }
        }
        // The replica has those grants and their counter; it never hears of the next one.
        servers.cutOffReplica();
        Lease held = a.lock("job").acquire();
        assertThat(held.token()).isGreaterThan(highest);
        int old = servers.stopMaster();
        servers.resumeReplica();
        servers.awaitFailover(old, FAILOVER);

        assertThat(b.inspect("job")).as("the lock on the promoted replica, which lost the grant").isEmpty();
        try (Lease next = b.lock("job").acquire(LEASE.multipliedBy(2))) {
          assertThat(next.token()).as("the token granted after the failover, against %d before it",
              held.token()).isGreaterThan(held.token());
        }
      }
    }
  }

  private static LockClient client(SentinelServers servers, String policy, Counter events) {
    String query = "prefix=failover:" + (policy.isEmpty() ? "" : "&" + policy);
    return LockClient.builder().url(servers.url(query)).leaseTime(LEASE).listener(events).build();
  }
}
