package dev.dlock.testkit;

import static dev.dlock.testkit.EventRecorder.Kind.WAITED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A fair lock: first come, first served across clients, with no barging past the queue. */
interface FairCases extends SuiteCase {

  @Test
  default void waitersOfManyClientsAreGrantedInTheOrderTheyCame() throws InterruptedException {
    String name = f().name();
    Lease held = take(f().client().fairLock(name));
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Worker<Long>> waiters = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int me = i;
      LockClient client = f().client();
      DistributedLock lock = client.fairLock(name);
      waiters.add(f().start("fair-" + i, () -> {
        try (Lease lease = lock.acquire(f().patience())) {
          order.add(me);
          return lease.token();
        }
      }));
      f().events(client).awaitCount(WAITED, name, 1, f().slack());
    }
    held.close();
    long last = held.token();
    for (Worker<Long> w : waiters) {
      long token = w.join(f().patience());
      assertThat(token).isGreaterThan(last);
      last = token;
    }
    assertThat(order).containsExactly(0, 1, 2, 3, 4);
  }

  @Test
  default void aNewcomerCannotBargeAheadOfAQueuedWaiter() throws InterruptedException {
    String name = f().name();
    Lease held = take(f().client().fairLock(name));
    LockClient queuedClient = f().client();
    DistributedLock queued = queuedClient.fairLock(name);
    CountDownLatch newcomerTried = new CountDownLatch(1);
    Worker<Long> waiter = f().start("queued", () -> {
      try (Lease lease = queued.acquire(f().patience())) {
        newcomerTried.await(f().patience().toMillis(), TimeUnit.MILLISECONDS);
        return lease.token();
      }
    });
    f().events(queuedClient).awaitCount(WAITED, name, 1, f().slack());
    DistributedLock newcomer = f().client().fairLock(name);
    held.close();
    // Refused either way: the waiter is still queued ahead, or it holds the lock by now.
    assertThat(newcomer.tryAcquire()).as("a try just after the release, with a waiter queued").isEmpty();
    newcomerTried.countDown();
    assertThat(waiter.join(f().patience())).isGreaterThan(held.token());
    assertThat(newcomer.tryAcquire(f().patience())).hasValueSatisfying(Lease::close);
  }

  @Test
  default void aFairLockIsReentrantAndExcludesOtherClients() throws InterruptedException {
    String name = f().name();
    DistributedLock lock = f().client().fairLock(name);
    lock.lock();
    try {
      lock.lock();
      assertThat(lock.holdCount()).isEqualTo(2);
      lock.unlock();
      assertThat(f().client().fairLock(name).tryAcquire()).isEmpty();
      assertThat(f().client().lock(name).tryAcquire()).as("the exclusive lock of the same name")
          .hasValueSatisfying(Lease::close);
    } finally {
      lock.unlock();
    }
    assertThat(f().client().fairLock(name).tryAcquire()).hasValueSatisfying(Lease::close);
  }
}
