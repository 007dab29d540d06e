package dev.dlock.testkit;

import static dev.dlock.testkit.EventRecorder.Kind.LOST;
import static dev.dlock.testkit.EventRecorder.Kind.RENEWED;
import static dev.dlock.testkit.SuiteFixture.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Leases that run out, the loss signal, the watchdog and a crashed holder. */
interface ExpiryCases extends SuiteCase {
  @Test
  default void unrenewedLeaseIsReportedLostAtItsDeadlineWithoutContention() throws Exception {
    Duration lease = f().lease();
    String name = f().name();
    LockClient client = f().client();
    long before = Ticker.system().read();
    Lease held = client.lock(name, lease).acquire(f().slack());
    assertThat(held.remaining()).isPositive().isLessThanOrEqualTo(lease);
    CompletableFuture<LeaseLostException> callback = new CompletableFuture<>();
    held.onLost(callback::complete);
    LeaseLostException reason =
        callback.get(lease.plus(f().slack()).toMillis(), TimeUnit.MILLISECONDS);
    // The client counts the lease from before its request, less a margin (1% and 20 ms, for clock
    // drift, expiry granularity and the timer's delay), so it reports the loss before the server could
    // let the lock go, and not sooner.
    assertThat(since(before)).as("time until the holder was told of the loss")
        .isGreaterThanOrEqualTo(lease.minus(lease.dividedBy(100)).minusMillis(20))
        .isLessThan(lease.plus(f().slack()));
    assertThat(reason).hasMessageContaining(name);
    assertThat(held.isValid()).isFalse();
    assertThatThrownBy(held::close).isInstanceOf(LeaseLostException.class);
    assertThat(f().events(client).count(LOST, name)).isEqualTo(1);
  }

  @Test
  default void watchdogKeepsARenewedLeaseBeyondThreeLeases() throws Exception {
    Duration lease = f().lease();
    String name = f().name();
    LockClient a = f().client(b -> b.leaseTime(lease));
    DistributedLock other = f().client().lock(name);
    long acquiredAt = Ticker.system().read();
    Lease held = a.lock(name).acquire(f().slack());
    long firstDeadline = held.validUntilNanos();
    // The watchdog renews every third of a lease, each round a full period after the last, so the
    // eleventh renewal comes at least ten periods (3.33 leases) after the first.
    f().events(a).awaitCount(RENEWED, name, 11, lease.multipliedBy(4).plus(f().slack()));
    assertThat(since(acquiredAt)).as("time held under renewal").isGreaterThan(lease.multipliedBy(3));

    assertThat(held.isValid()).as("a renewed lease after more than 3 lease periods").isTrue();
    held.ensureValid();
    assertThat(held.lost().toCompletableFuture().isDone()).isFalse();
    assertThat(held.validUntilNanos() - firstDeadline).as("how far renewals moved the deadline")
        .isGreaterThanOrEqualTo(lease.multipliedBy(2).toNanos());
    assertThat(other.tryAcquire()).as("another client while the lease is renewed").isEmpty();
    assertThat(f().events(a).count(LOST, name)).isZero();
    held.close();
    take(other, "the renewed lease was released").close();
  }
}
