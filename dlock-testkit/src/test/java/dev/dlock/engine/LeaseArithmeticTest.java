package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockException;
import dev.dlock.NotOwnerException;
import dev.dlock.spi.LockInfo;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Validity, expiry and loss on virtual time: the server and the clients share one VirtualTime. */
class LeaseArithmeticTest extends DrivenClients {

  @Test
  void validityIsCountedFromTheRequestOnTheClientsTicker() throws Exception {
    long before = time.ticker().read();
    Lease lease = a.lock("job", Duration.ofSeconds(10)).acquire();
    // Less the margin for clock drift, expiry granularity and the timer's delay: 1% of the lease and 20 ms.
    long margin = TimeUnit.MILLISECONDS.toNanos(120);
    assertThat(lease.validUntilNanos()).isEqualTo(before + TimeUnit.SECONDS.toNanos(10) - margin);
    time.advance(Duration.ofSeconds(4));
    assertThat(lease.remaining()).isEqualTo(Duration.ofSeconds(6).minusNanos(margin));
    assertThat(lease.isValid()).isTrue();
    lease.close();
  }

  @Test
  void aFixedLeaseRunsOutAndIsReportedLostWithTheLockAndOwnerNamed() throws Exception {
    Lease lease = a.lock("job", Duration.ofSeconds(10)).acquire();
    assertThat(b.lock("job").tryAcquire()).isEmpty();

    time.advance(Duration.ofSeconds(10));

    assertThat(lease.isValid()).isFalse();
    assertThat(lease.remaining()).isEqualTo(Duration.ZERO);
    LeaseLostException lost = lease.lost().toCompletableFuture().getNow(null);
    assertThat(lost).isNotNull();
    // Told at its deadline: the 10 s less the margin, 120 ms.
    assertThat(lost.getMessage()).contains("'job'", a.id(), "ran out", "9.88s");
    assertThatThrownBy(lease::ensureValid).isInstanceOf(LeaseLostException.class).hasMessageContaining("'job'");

    Lease second = b.lock("job").acquire(Duration.ZERO);
    assertThat(second.token()).isGreaterThan(lease.token());
    assertThatThrownBy(lease::close).isInstanceOf(LeaseLostException.class);
    assertThat(b.lock("job").isHeldByCurrentThread()).isTrue();
    assertThat(a.lock("job").tryAcquire()).isEmpty();
    second.close();
  }

  @Test
  void aReleaseTheServerRefusesIsNotOwner() throws Exception {
    Lease lease = lateClient().lock("job", Duration.ofSeconds(10)).acquire();
    time.advance(Duration.ofSeconds(11));
    Lease other = b.lock("job").acquire(Duration.ZERO);
    // The client has not looked at the lease since it ran out: the backend's refusal tells it.
    assertThatThrownBy(lease::close).isInstanceOf(NotOwnerException.class);
    assertThat(lease.lost().toCompletableFuture().isDone()).isTrue();
    other.close();
  }

  @Test
  void inspectShowsHolderTokenAndTimeLeftByTheServersClock() throws Exception {
    assertThat(b.inspect("job")).isEmpty();
    try (Lease lease = a.lock("job", Duration.ofSeconds(10)).acquire(); Lease other = a.lock("other").acquire()) {
      time.advance(Duration.ofSeconds(3));
      LockInfo info = b.inspect("job").orElseThrow();
      assertThat(info.owner()).startsWith(a.id() + ":");
      assertThat(info.token()).isEqualTo(lease.token());
      assertThat(info.remaining()).isEqualTo(Duration.ofSeconds(7));
      assertThat(b.inspectAll()).extracting(LockInfo::name).containsExactly("job", "other");
      assertThat(other.isValid()).isTrue();
    }
    assertThat(b.inspectAll()).isEmpty();
  }

  @Test
  void reentryKeepsTheTokenAndTheGrant() throws Exception {
    DistributedLock lock = a.lock("job");
    try (Lease outer = lock.acquire(); Lease inner = lock.acquire()) {
      assertThat(inner.token()).isEqualTo(outer.token());
      assertThat(lock.holdCount()).isEqualTo(2);
    }
    assertThat(lock.holdCount()).isZero();
  }

  @Test
  void closingTheClientFiresLostOnHeldLeasesAndFreesTheLock() throws Exception {
    Lease lease = a.lock("job").acquire();
    a.close();
    assertThat(lease.lost().toCompletableFuture().getNow(null)).hasMessageContaining("closed");
    lease.close(); // already ended by the client: a no-op, not an error
    assertThat(b.lock("job").tryAcquire()).isPresent().get().satisfies(Lease::close);
    assertThatThrownBy(() -> a.lock("job").tryAcquire()).isInstanceOf(LockException.class).hasMessageContaining("closed");
  }
}
