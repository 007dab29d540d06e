package dev.dlock.testkit;

import static dev.dlock.testkit.EventRecorder.Kind.ACQUIRED;
import static dev.dlock.testkit.EventRecorder.Kind.RELEASED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Acquire and release, exclusion, reentrancy, ownership and fencing tokens. */
interface BasicCases extends SuiteCase {
  @Test
  default void acquireAndReleaseRepeatedly() throws InterruptedException {
    LockClient client = f().client();
    DistributedLock lock = client.lock(f().name());
    for (int i = 0; i < 2; i++) {
      Lease lease = lock.acquire(f().slack());
      assertThat(lease.name()).isEqualTo(lock.name());
      assertThat(lease.isValid()).isTrue();
      assertThat(lock.holdCount()).isEqualTo(1);
      lease.close();
      assertThat(lock.holdCount()).isZero();
      assertThat(lease.isValid()).isFalse();
      assertThat(lease.lost().toCompletableFuture().isDone())
          .as("the loss signal of a lease released normally").isFalse();
      lock.lock();
      assertThat(lock.isHeldByCurrentThread()).isTrue();
      lock.unlock();
      assertThat(lock.isHeldByCurrentThread()).isFalse();
    }
    // Back to back, and without waiting: the lock is free the moment a release returns.
    long last = Long.MIN_VALUE;
    for (int i = 0; i < 10; i++) {
      Lease lease = take(lock, "it was released just before, round " + i);
      assertThat(lease.token()).isGreaterThan(last);
      last = lease.token();
      lease.close();
      assertThat(lock.tryLock()).as("tryLock right after a release, round %d", i).isTrue();
      lock.unlock();
    }
    take(f().client().lock(lock.name()), "its last holder released it").close();
  }

  @Test
  default void heldLockExcludesOtherClientsUntilReleased() {
    String name = f().name();
    LockClient a = f().client();
    LockClient b = f().client();
    DistributedLock lockB = b.lock(name);
    Lease held = take(a.lock(name), "nobody has used it");
    assertThat(lockB.tryAcquire()).isEmpty();
    assertThat(lockB.tryLock()).isFalse();
    assertThat(lockB.holdCount()).isZero();
    held.close();
    try (Lease taken = take(lockB, "its holder released it")) {
      assertThat(taken.token()).isGreaterThan(held.token());
      assertThat(a.lock(name).tryAcquire()).as("the first client while the second holds").isEmpty();
    }
  }

  @Test
  default void heldLockExcludesOtherThreadsOfTheSameClient() {
    LockClient client = f().client();
    DistributedLock lock = client.lock(f().name());
    try (Lease held = take(lock, "nobody has used it")) {
      Worker<Boolean> other = f().start("other-thread", () ->
          lock.tryAcquire().isPresent() || lock.tryLock() || lock.holdCount() != 0);
      assertThat(other.join(f().slack())).as("another thread got or counted the lock").isFalse();
      assertThat(held.isValid()).isTrue();
    }
    Worker<Boolean> after = f().start("after-release", () -> {
      if (!lock.tryLock()) {
        return false;
      }
      lock.unlock();
      return true;
    });
    assertThat(after.join(f().slack())).isTrue();
  }

  @Test
  default void independentNamesDoNotInterfere() {
    String first = f().name("first");
    String second = f().name("second");
    LockClient a = f().client();
    LockClient b = f().client();
    try (Lease heldFirst = take(a.lock(first), "nobody has used it");
        Lease heldSecond = take(b.lock(second), "only '" + first + "' is held");
        Lease third = take(a.lock(f().name("third")), "only other names are held")) {
      assertThat(a.lock(second).tryAcquire()).isEmpty();
      assertThat(b.lock(first).tryAcquire()).isEmpty();
      assertThat(List.of(heldFirst, heldSecond, third)).allMatch(Lease::isValid);
    }
  }

  @Test
  default void clientIdsAreUniqueAndCarryTheClientName() {
    LockClient a = f().client(b -> b.clientName("alpha"));
    LockClient b = f().client(x -> x.clientName("alpha"));
    assertThat(a.id()).startsWith("alpha").doesNotContain(":");
    assertThat(b.id()).startsWith("alpha").isNotEqualTo(a.id());
  }

  @Test
  default void lockViewIsReentrantAndHoldsUntilTheLastUnlock() {
    String name = f().name();
    LockClient a = f().client();
    DistributedLock lock = a.lock(name);
    DistributedLock other = f().client().lock(name);
    List<Integer> counts = new ArrayList<>();
    counts.add(lock.holdCount());
    lock.lock();
    counts.add(lock.holdCount());
    lock.lock();
    counts.add(lock.holdCount());
    assertThat(other.tryAcquire()).isEmpty();
    lock.unlock();
    counts.add(lock.holdCount());
    assertThat(other.tryAcquire()).as("after the first of two unlocks").isEmpty();
    lock.unlock();
    counts.add(lock.holdCount());
    assertThat(counts).containsExactly(0, 1, 2, 1, 0);
    take(other, "its holder's last unlock released it").close();
    assertThat(f().events(a).count(ACQUIRED, name)).as("grants: reentry is not one").isEqualTo(1);
    assertThat(f().events(a).count(RELEASED, name)).isEqualTo(1);
  }

  @Test
  default void leaseViewReentryKeepsTheTokenAndMixesWithTheLockView() throws InterruptedException {
    String name = f().name();
    LockClient a = f().client();
    DistributedLock lock = a.lock(name);
    DistributedLock other = f().client().lock(name);
    Lease outer = lock.acquire(f().slack());
    Lease inner = lock.acquire(f().slack());
    Lease third = take(lock, "this thread holds it");
    lock.lock();
    assertThat(lock.holdCount()).isEqualTo(4);
    assertThat(List.of(inner.token(), third.token())).containsOnly(outer.token());
    inner.close();
    lock.unlock();
    third.close();
    assertThat(lock.holdCount()).isEqualTo(1);
    assertThat(outer.isValid()).isTrue();
    assertThat(other.tryAcquire()).as("while the outermost lease is open").isEmpty();
    outer.close();
    assertThat(lock.holdCount()).isZero();
    take(other, "the last hold was closed").close();
    assertThat(f().events(a).count(ACQUIRED, name)).as("grants: reentry is not one").isEqualTo(1);
  }

  @Test
  default void unlockByAThreadThatDoesNotHoldTheLockIsIllegal() throws InterruptedException {
    String name = f().name();
    DistributedLock lock = f().client().lock(name);
    DistributedLock other = f().client().lock(name);
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch unlock = new CountDownLatch(1);
    Worker<Integer> holder = f().start("holder", () -> {
      lock.lock();
      locked.countDown();
      unlock.await();
      lock.unlock();
      return lock.holdCount();
    });
    assertThat(locked.await(f().slack().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining(name);
    assertThat(lock.holdCount()).isZero();
    assertThat(other.tryAcquire()).as("the failed unlock must not release the holder's lock").isEmpty();
    unlock.countDown();
    assertThat(holder.join(f().slack())).isZero();
    assertThatThrownBy(lock::unlock).as("unlock of a free lock")
        .isInstanceOf(IllegalMonitorStateException.class);
    take(other, "its holder unlocked it").close();
  }

  @Test
  default void closingALeaseTwiceIsANoOp() {
    String name = f().name();
    DistributedLock lock = f().client().lock(name);
    DistributedLock other = f().client().lock(name);
    Lease outer = take(lock, "nobody has used it");
    Lease inner = take(lock, "this thread holds it");
    inner.close();
    inner.close();
    assertThat(lock.holdCount()).as("a second close must not drop the outer hold").isEqualTo(1);
    assertThat(outer.isValid()).isTrue();
    assertThat(inner.isValid()).isFalse();
    assertThatThrownBy(inner::ensureValid).isInstanceOf(LeaseLostException.class);
    assertThat(other.tryAcquire()).isEmpty();
    outer.close();
    outer.close();
    assertThat(lock.holdCount()).isZero();
    take(other, "both holds were closed").close();
  }

  @Test
  default void aLeaseCanBeClosedFromAnotherThread() {
    String name = f().name();
    LockClient a = f().client();
    DistributedLock lock = a.lock(name);
    Lease lease = take(lock, "nobody has used it");
    f().start("closer", () -> {
      lease.close();
      return null;
    }).join(f().slack());
    assertThat(lease.isValid()).isFalse();
    assertThat(lock.holdCount()).as("the acquiring thread's count after another thread closed it")
        .isZero();
    assertThat(f().events(a).count(RELEASED, name)).isEqualTo(1);
    take(f().client().lock(name), "another thread closed its lease").close();
    lease.close();
  }

  @Test
  default void fencingTokensStrictlyIncreaseAcrossClients() throws InterruptedException {
    String name = f().name();
    List<DistributedLock> locks = List.of(
        f().client().lock(name), f().client().lock(name), f().client().lock(name));
    long last = Long.MIN_VALUE;
    for (int i = 0; i < 100; i++) {
      DistributedLock lock = locks.get(i % locks.size());
      try (Lease lease = lock.acquire(f().slack())) {
        assertThat(lease.token()).as("token of grant %d", i).isGreaterThan(last);
        last = lease.token();
        try (Lease again = lock.acquire(f().slack())) {
          assertThat(again.token()).as("token on reentry").isEqualTo(lease.token());
        }
      }
    }
  }
}
