package dev.dlock.testkit;

import static dev.dlock.testkit.EventRecorder.Kind.WAITED;
import static dev.dlock.testkit.EventRecorder.Kind.WOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedSemaphore;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A semaphore of leases: at most n at once, never reentrant, freed when a holder crashes. */
interface SemaphoreCases extends SuiteCase {

  private Lease permit(DistributedSemaphore s) {
    return s.tryAcquire().orElseThrow(() -> new AssertionError(
        "semaphore '" + s.name() + "' should have a free permit"));
  }

  @Test
  default void atMostThePermitCountIsHeldAtOnce() {
    String name = f().name();
    Lease a = permit(f().client().semaphore(name, 2));
    Lease b = permit(f().client().semaphore(name, 2));
    assertThat(b.token()).isGreaterThan(a.token());
    DistributedSemaphore third = f().client().semaphore(name, 2);
    assertThat(third.tryAcquire()).isEmpty();
    a.close();
    Lease c = permit(third);
    assertThat(c.token()).isGreaterThan(b.token());
    b.close();
    c.close();
  }

  @Test
  default void permitsAreNotReentrant() {
    String name = f().name();
    DistributedSemaphore one = f().client().semaphore(name, 1);
    Lease first = permit(one);
    assertThat(one.tryAcquire()).as("a second permit for the same thread").isEmpty();
    first.close();
    permit(one).close();
  }

  @Test
  default void aCrashedHoldersPermitsComeBackAfterItsLease() throws InterruptedException {
    String name = f().name();
    LockClient doomed = f().client(b -> b.leaseTime(f().lease()));
    permit(doomed.semaphore(name, 2));
    permit(doomed.semaphore(name, 2));
    f().crash(doomed);
    DistributedSemaphore after = f().client().semaphore(name, 2);
    try (Lease one = after.acquire(f().patience()); Lease two = after.acquire(f().patience())) {
      assertThat(two.token()).isGreaterThan(one.token());
    }
  }

  @Test
  default void aReleasedPermitWakesOneWaiter() throws InterruptedException {
    String name = f().name();
    Lease held = permit(f().client().semaphore(name, 1));
    LockClient c1 = f().waitingClient();
    LockClient c2 = f().waitingClient();
    Worker<Optional<Lease>> w1 = f().start("w1", () -> c1.semaphore(name, 1).tryAcquire(f().patience()));
    f().events(c1).awaitCount(WAITED, name, 1, f().slack());
    Worker<Optional<Lease>> w2 = f().start("w2", () -> c2.semaphore(name, 1).tryAcquire(f().patience()));
    f().events(c2).awaitCount(WAITED, name, 1, f().slack());
    held.close();
    Lease first = w1.join(f().patience()).orElseThrow();
    if (f().notifies()) {
      assertThat(f().events(c2).count(WOKEN, name)).as("the second waiter, after one release").isZero();
    }
    first.close();
    w2.join(f().patience()).orElseThrow().close();
  }

  @Test
  default void clientsMustAgreeOnThePermitCount() {
    String name = f().name();
    Lease held = permit(f().client().semaphore(name, 2));
    DistributedSemaphore other = f().client().semaphore(name, 3);
    assertThatThrownBy(other::tryAcquire).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits").hasMessageContaining(name);
    held.close();
  }

  @Test
  default void aPermitCountBelowOneIsRefusedByName() {
    LockClient c = f().client();
    assertThatThrownBy(() -> c.semaphore(f().name(), 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits must be positive: 0");
  }
}
