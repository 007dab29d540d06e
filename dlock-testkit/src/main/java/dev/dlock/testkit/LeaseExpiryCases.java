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

/**
 * The cases that need the server to drop a grant when its lease runs out: a fixed lease expiring,
 * and a crashed holder freed after its lease. Locks bound to a connection or session instead of a
 * server-side lease run the suite without them ({@link SessionLockConformanceSuite}).
 */
interface LeaseExpiryCases extends SuiteCase {
  @Test
  default void unrenewedLeaseRunsOutAndItsHolderLearnsItLost() throws Exception {
    Duration lease = f().lease();
    Duration bound = lease.plus(f().slack());
    String name = f().name();
    LockClient a = f().client();
    LockClient b = f().client();
    DistributedLock third = f().client().lock(name);
    long before = Ticker.system().read();
    Lease first = a.lock(name, lease).acquire(f().slack());
    Worker<Lease> next = f().start("next-holder", () -> b.lock(name).acquire(bound));
    Lease second = next.join(bound.plus(f().slack()));
    // The lower bound is half a lease, not a whole one: a server with a coarse clock may expire
    // a little early, and that is the backend's documented tolerance, not a bug.
    assertThat(since(before)).as("time until another client got the unrenewed lock")
        .isGreaterThanOrEqualTo(lease.dividedBy(2))
        .isLessThan(bound);
    assertThat(second.token()).isGreaterThan(first.token());

    LeaseLostException reason =
        first.lost().toCompletableFuture().get(f().slack().toMillis(), TimeUnit.MILLISECONDS);
    assertThat(reason).hasMessageContaining(name);
    assertThat(first.isValid()).isFalse();
    assertThat(first.remaining()).isEqualTo(Duration.ZERO);
    assertThatThrownBy(first::ensureValid).isInstanceOf(LeaseLostException.class)
        .hasMessageContaining(name);
    assertThat(f().events(a).count(LOST, name)).isEqualTo(1);

    assertThatThrownBy(first::close).as("the late release of the expired lease")
        .isInstanceOf(LeaseLostException.class).hasMessageContaining(name);
    assertThat(third.tryAcquire()).as("a third client after the expired holder's late release")
        .isEmpty();
    assertThat(second.isValid()).isTrue();
    second.close();
    take(third, "the new holder released it").close();
  }

  @Test
  default void expiredLockViewHoldReportsTheLossOnUnlock() throws Exception {
    Duration lease = f().lease();
    String name = f().name();
    DistributedLock lockA = f().client().lock(name, lease);
    DistributedLock lockB = f().client().lock(name);
    DistributedLock lockC = f().client().lock(name);
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch unlock = new CountDownLatch(1);
    Worker<LeaseLostException> holder = f().start("holder", () -> {
      lockA.lock();
      locked.countDown();
      unlock.await();
      try {
        lockA.unlock();
      } catch (LeaseLostException e) {
        assertThat(lockA.holdCount()).as("hold count after unlocking a lost hold").isZero();
        assertThat(lockA.tryLock()).as("tryLock while another client holds it").isFalse();
        return e;
      }
      throw new AssertionError("unlock of an expired hold returned normally");
    });
    assertThat(locked.await(f().slack().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    Optional<Lease> taken = lockB.tryAcquire(lease.plus(f().slack()));
    assertThat(taken).as("another client after the unrenewed lease ran out").isPresent();
    unlock.countDown();
    assertThat(holder.join(f().slack())).hasMessageContaining(name);
    assertThat(lockC.tryAcquire()).as("a third client after the expired holder's late unlock")
        .isEmpty();
    taken.get().close();
  }

  @Test
  default void expiredHolderSupersededByAnotherThreadOfItsClientCannotFreeIt() throws Exception {
    Duration lease = f().lease();
    String name = f().name();
    LockClient client = f().client();
    DistributedLock lock = client.lock(name, lease);
    // The successor's lease is renewed, so the checks below have all the time they need.
    DistributedLock renewed = client.lock(name);
    DistributedLock other = f().client().lock(name);
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch unlock = new CountDownLatch(1);
    Worker<Integer> first = f().start("first-thread", () -> {
      lock.lock();
      locked.countDown();
      unlock.await();
      assertThatThrownBy(lock::unlock).isInstanceOf(LeaseLostException.class)
          .hasMessageContaining(name);
      return lock.holdCount();
    });
    assertThat(locked.await(f().slack().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    // A second thread of the same client waits for the first one's lease to run out.
    Lease second = f().start("second-thread", () -> renewed.acquire(lease.plus(f().slack())))
        .join(lease.plus(f().slack()).plus(f().slack()));
    unlock.countDown();
    assertThat(first.join(f().slack())).as("the first thread's hold count after its late unlock")
        .isZero();
    assertThat(second.isValid()).isTrue();
    assertThat(other.tryAcquire()).as("another client after the superseded holder's unlock")
        .isEmpty();
    assertThat(renewed.holdCount()).as("this thread holds nothing").isZero();
    second.close();
    take(other, "the second thread released it").close();
  }

  @Test
  default void crashedHolderIsFreedAfterItsLease() throws Exception {
    Duration lease = f().lease();
    String name = f().name();
    LockClient a = f().client(b -> b.leaseTime(lease));
    DistributedLock other = f().client().lock(name);
    Lease held = a.lock(name).acquire(f().slack());
    // Crash after a renewal, so the server's deadline is one the watchdog set, not the grant's.
    f().events(a).awaitCount(RENEWED, name, 1, lease.plus(f().slack()));
    long crashedAt = Ticker.system().read();
    f().crash(a);
    assertThat(other.tryAcquire()).as("right after the crash, which must release nothing").isEmpty();
    Optional<Lease> taken = other.tryAcquire(lease.plus(f().slack()));
    assertThat(taken).as("another client within a lease of the crash").isPresent();
    assertThat(since(crashedAt)).isLessThan(lease.plus(f().slack()));
    assertThat(taken.get().token()).isGreaterThan(held.token());
    taken.get().close();
  }
}
