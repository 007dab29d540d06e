package dev.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.engine.TapBackend;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Renewal cadence and batching, expiry, the loss deadline and session loss of the engine, on
 * {@link VirtualTime} and a {@code mem:} server on the same clock: each step is exact, and nothing
 * waits in real time.
 */
class VirtualTimeTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private final VirtualTime time = new VirtualTime();
  private final MemServer server = MemServer.create(time.ticker());
  private final List<LockClient> clients = new ArrayList<>();

  @AfterEach
  void close() {
    clients.forEach(LockClient::close);
  }

  private LockClient client(LockBackend backend) {
    LockClient c = LockClient.builder().backend(backend).leaseTime(LEASE)
        .ticker(time.ticker()).scheduler(time.scheduler()).build();
    clients.add(c);
    return c;
  }

  private long now() {
    return time.ticker().read();
  }

  @Test
  void aLeaseIsRenewedOnceEveryThirdOfIt() throws Exception {
    TapBackend tap = new TapBackend(server.newBackend());
    Lease lease = client(tap).lock("job").acquire();
    long firstEnd = lease.validUntilNanos();

    time.advance(LEASE.dividedBy(3).minusNanos(1));
    assertThat(tap.renewLeases).as("renewals before a third of the lease").isEmpty();
    time.advance(Duration.ofNanos(1));
    assertThat(tap.renewLeases).as("renewals at a third of the lease").hasSize(1);
    time.advance(LEASE.dividedBy(3));
    assertThat(tap.renewLeases).as("renewals at two thirds of the lease").hasSize(2);
    assertThat(lease.validUntilNanos()).isGreaterThan(firstEnd);
    time.advance(LEASE.multipliedBy(10));
    assertThat(lease.isValid()).as("a renewed lease outlives its first term").isTrue();
  }

  @Test
  void allHeldLeasesAreRenewedInOneCallPerRound() throws Exception {
    TapBackend tap = new TapBackend(server.newBackend());
    LockClient c = client(tap);
    List<Lease> leases = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      leases.add(c.lock("job-" + i).acquire());
    }
    time.advance(LEASE);
    assertThat(tap.batches).as("grants in each renewal call, over one lease").containsExactly(5, 5, 5);
    assertThat(leases).allMatch(Lease::isValid);
  }

  @Test
  void aLeaseWhoseRenewalsFailIsLostBeforeTheServerLetsItGo() throws Exception {
    TapBackend tap = new TapBackend(server.newBackend());
    LockClient other = client(server.newBackend());
    long start = now();
    Lease lease = client(tap).lock("job").acquire();
    AtomicLong lostAt = new AtomicLong();
    lease.onLost(e -> lostAt.set(now()));
    tap.failRenewals = true;
    tap.failReleases.set(Integer.MAX_VALUE); // the server lets the lease go only when it expires there

    time.advance(LEASE.minusMillis(1));
    assertThat(lostAt.get()).as("the loss notice, before the lease ends at the server").isNotZero();
    assertThat(lostAt.get() - start).as("nanos from grant to loss notice")
        .isGreaterThan(LEASE.multipliedBy(2).dividedBy(3).toNanos());
    assertThat(tap.renewLeases.size()).as("failed renewals").isGreaterThanOrEqualTo(2);
    assertThat(other.lock("job").tryAcquire()).as("the server still holds the lease").isEmpty();

    time.advance(Duration.ofMillis(1));
    Optional<Lease> next = other.lock("job").tryAcquire();
    assertThat(next).as("the lock once the server's lease ran out").isPresent();
    assertThat(next.get().token()).isGreaterThan(lease.token());
  }

  @Test
  void aSessionLeaseSetsTheCadenceAndItsLossEndsTheHoldsEarly() throws Exception {
    TapBackend tap = new TapBackend(server.newBackend());
    tap.sessionLease = Duration.ofSeconds(6);
    Lease lease = client(tap).lock("job").acquire();
    AtomicLong lostAt = new AtomicLong();
    lease.onLost(e -> lostAt.set(now()));

    time.advance(Duration.ofSeconds(2));
    assertThat(tap.renewLeases).as("renewals at a third of the 6 s session").hasSize(1);
    long renewedAt = now();
    tap.failRenewals = true;
    time.advance(Duration.ofSeconds(6).minusNanos(1));
    assertThat(lostAt.get()).as("the loss notice, before the session's lease ends").isNotZero()
        .isLessThan(renewedAt + Duration.ofSeconds(6).toNanos())
        .isGreaterThan(renewedAt);
    assertThat(lease.isValid()).isFalse();
  }

  @Test
  void aFixedLeaseLongerThanTheSessionLastsItsWholeLeaseWhileTheSessionIsRenewed() throws Exception {
    TapBackend tap = new TapBackend(server.newBackend());
    tap.sessionLease = Duration.ofMillis(600);
    Lease lease = client(tap).lock("job", Duration.ofSeconds(2)).acquire();

    time.advance(Duration.ofMillis(1_900));
    assertThat(lease.isValid()).as("a fixed lease of 2 s on 600 ms sessions, at 1.9 s").isTrue();
    assertThat(tap.renewLeases.size()).as("session renewals meanwhile").isGreaterThanOrEqualTo(3);
    time.advance(Duration.ofMillis(100));
    assertThat(lease.isValid()).as("the fixed lease at its end").isFalse();
  }

  @Test
  void theReleaseOfAnExpiredLeaseIsTriedAgainWhileTheServerIsAway() throws Exception {
    TapBackend tap = new TapBackend(server.newBackend());
    tap.failReleases.set(3);
    LockClient c = client(tap);
    Lease lease = c.lock("job", Duration.ofMillis(300)).acquire();
    time.advance(Duration.ofMillis(300));
    assertThat(lease.isValid()).isFalse();

    // Releases run on the client's own clean-up thread, which puts each retry on the virtual
    // scheduler after its failed try; so step by the longest pause until a release goes through.
    Grant released = null;
    for (int step = 0; step < 50 && released == null; step++) {
      time.advance(Duration.ofSeconds(8));
      released = tap.released.poll(100, TimeUnit.MILLISECONDS);
    }
    assertThat(released).as("the release that went through on the fourth try").isNotNull();
    assertThat(released.token()).isEqualTo(lease.token());
    assertThat(tap.failReleases).as("failed tries left").hasValue(0);
    assertThat(client(server.newBackend()).inspect("job")).as("the lock at the server after the release")
        .isEmpty();
  }

  @Test
  void closingAClientLeavesAGivenSchedulerRunningAndCancelsItsTasks() throws Exception {
    TapBackend tap = new TapBackend(server.newBackend());
    LockClient c = client(tap);
    c.lock("job").acquire();
    assertThat(time.pending()).as("the renewal period is scheduled").isPositive();

    c.close(); // VirtualTime's scheduler refuses to be shut down, so this would throw
    assertThat(time.pending()).as("tasks left by the closed client").isZero();
    time.advance(LEASE.multipliedBy(3));
    assertThat(tap.renewLeases).as("renewals after the close").isEmpty();

    ScheduledThreadPoolExecutor shared = new ScheduledThreadPoolExecutor(1);
    shared.setRemoveOnCancelPolicy(true);
    try {
      LockClient.builder().backend(server.newBackend()).scheduler(shared).build().close();
      assertThat(shared.isShutdown()).as("a shared scheduler after its client closed").isFalse();
      assertThat(shared.getQueue()).as("tasks the closed client left on it").isEmpty();
    } finally {
      shared.shutdownNow();
    }
  }
}
