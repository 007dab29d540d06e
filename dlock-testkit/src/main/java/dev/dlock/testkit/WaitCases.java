package dev.dlock.testkit;

import static dev.dlock.testkit.EventRecorder.Kind.RELEASED;
import static dev.dlock.testkit.EventRecorder.Kind.WAITED;
import static dev.dlock.testkit.EventRecorder.Kind.WOKEN;
import static dev.dlock.testkit.SuiteFixture.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockTimeoutException;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Timed and untimed tries, timeouts, interrupts and wake-ups. */
interface WaitCases extends SuiteCase {
  Duration SHORT_WAIT = Duration.ofMillis(300);

  private void assertWaitedAbout(long startNanos, Duration wait) {
    assertThat(since(startNanos)).as("time spent in a wait of %s", wait)
        .isGreaterThanOrEqualTo(wait)
        .isLessThan(wait.plus(f().slack()));
  }

  @Test
  default void tryAcquireWithAWaitGivesUpAfterTheWait() throws InterruptedException {
    String name = f().name();
    Lease held = take(f().client().lock(name));
    DistributedLock lock = f().client().lock(name);
    long start = Ticker.system().read();
    assertThat(lock.tryAcquire(SHORT_WAIT)).isEmpty();
    assertWaitedAbout(start, SHORT_WAIT);
    start = Ticker.system().read();
    assertThat(lock.tryLock(SHORT_WAIT.toMillis(), TimeUnit.MILLISECONDS)).isFalse();
    assertWaitedAbout(start, SHORT_WAIT);
    // A wait that ran out must leave no queue entry to swallow the next release's wake-up.
    f().assertReleaseWakesFreshWaiter(name, held::close);
  }

  @Test
  default void tryAcquireWithoutAWaitNeverWaits() throws InterruptedException {
    String name = f().name();
    Lease held = take(f().client().lock(name));
    DistributedLock lock = f().client().lock(name);
    long start = Ticker.system().read();
    assertThat(lock.tryAcquire()).isEmpty();
    assertThat(lock.tryAcquire(Duration.ZERO)).isEmpty();
    assertThat(lock.tryLock()).isFalse();
    assertThat(lock.tryLock(0, TimeUnit.SECONDS)).isFalse();
    assertThat(lock.tryLock(-1, TimeUnit.SECONDS)).isFalse();
    assertThat(since(start)).as("five one-shot tries on a held lock").isLessThan(f().slack());
    f().assertReleaseWakesFreshWaiter(name, held::close);
  }

  @Test
  default void acquireWithAWaitThrowsATimeoutNamingTheLock() {
    String name = f().name();
    Lease held = take(f().client().lock(name));
    DistributedLock lock = f().client().lock(name);
    long start = Ticker.system().read();
    assertThatThrownBy(() -> lock.acquire(SHORT_WAIT)).isInstanceOf(LockTimeoutException.class)
        .hasMessageContaining(name);
    assertWaitedAbout(start, SHORT_WAIT);
    assertThatThrownBy(() -> lock.acquire(Duration.ZERO)).isInstanceOf(LockTimeoutException.class)
        .hasMessageContaining(name);
    held.close();
  }

  @FunctionalInterface
  interface Blocking {
    void waitFor(DistributedLock lock) throws InterruptedException;
  }

  @Test
  default void interruptedLockInterruptiblyLeavesNothingBehind() throws InterruptedException {
    interruptWhileWaiting(lock -> {
      lock.lockInterruptibly();
      lock.unlock();
    });
  }

  @Test
  default void interruptedTimedAcquireLeavesNothingBehind() throws InterruptedException {
    interruptWhileWaiting(lock -> lock.acquire(f().patience()).close());
  }

  @Test
  default void interruptedTimedTryAcquireLeavesNothingBehind() throws InterruptedException {
    interruptWhileWaiting(lock -> lock.tryAcquire(f().patience()).ifPresent(Lease::close));
  }

  private void interruptWhileWaiting(Blocking blocking) throws InterruptedException {
    String name = f().name();
    Lease held = take(f().client().lock(name));
    LockClient client = f().client();
    DistributedLock lock = client.lock(name);
    Worker<Integer> waiter = f().start("waiter", () -> {
      try {
        blocking.waitFor(lock);
      } catch (InterruptedException e) {
        return lock.holdCount();
      }
      throw new AssertionError("the wait ended without an InterruptedException");
    });
    f().events(client).awaitCount(WAITED, name, 1, f().slack());
    waiter.thread().interrupt();
    assertThat(waiter.join(f().slack())).as("hold count of the interrupted thread").isZero();
    f().assertReleaseWakesFreshWaiter(name, held::close);
    // The interrupted client's own state is clean too: any of its threads takes the free lock.
    take(lock).close();
  }

  @Test
  default void interruptInTheClientsLocalQueueLeavesNothingBehind() throws InterruptedException {
    String name = f().name();
    Lease held = take(f().client().lock(name));
    LockClient client = f().client();
    DistributedLock lock = client.lock(name);
    EventRecorder events = f().events(client);
    Duration patience = f().patience();
    Worker<Long> head = f().start("head", () -> {
      try (Lease lease = lock.acquire(patience)) {
        return lease.token();
      }
    });
    events.awaitCount(WAITED, name, 1, f().slack());
    // The head is waiting at the server, so this second thread of the client waits behind it.
    Worker<Integer> queued = f().start("queued", () -> {
      try {
        lock.lockInterruptibly();
      } catch (InterruptedException e) {
        return lock.holdCount();
      }
      lock.unlock();
      throw new AssertionError("the queued thread locked without an InterruptedException");
    });
    events.awaitCount(WAITED, name, 2, f().slack());
    queued.thread().interrupt();
    assertThat(queued.join(f().slack())).as("hold count of the interrupted thread").isZero();
    held.close();
    assertThat(head.join(f().slack())).isGreaterThan(held.token());
    take(lock).close();
  }

  @Test
  default void interruptedOnEntryTheLockViewFollowsTheLockContract() {
    String name = f().name();
    DistributedLock lock = f().client().lock(name);
    // On a free lock, so only the pending interrupt can make the interruptible methods fail.
    f().start("interrupted-on-entry", () -> {
      Thread.currentThread().interrupt();
      assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
      assertThat(Thread.interrupted()).as("interrupt status after lockInterruptibly threw").isFalse();
      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS))
          .isInstanceOf(InterruptedException.class);
      assertThat(Thread.interrupted()).as("interrupt status after tryLock(time) threw").isFalse();
      assertThat(lock.holdCount()).isZero();
      // lock() and tryLock() ignore interrupts: they take the lock and leave the status set.
      Thread.currentThread().interrupt();
      lock.lock();
      assertThat(lock.tryLock()).isTrue();
      assertThat(Thread.interrupted()).as("interrupt status after lock() and tryLock()").isTrue();
      assertThat(lock.holdCount()).isEqualTo(2);
      lock.unlock();
      lock.unlock();
      return null;
    }).join(f().slack());
    take(f().client().lock(name)).close();
  }

  @Test
  default void lockIgnoresInterruptsButKeepsTheFlag() throws InterruptedException {
    String name = f().name();
    Lease held = take(f().client().lock(name));
    LockClient client = f().client();
    DistributedLock lock = client.lock(name);
    Worker<Boolean> waiter = f().start("waiter", () -> {
      lock.lock();
      try {
        assertThat(lock.holdCount()).isEqualTo(1);
        return Thread.currentThread().isInterrupted();
      } finally {
        lock.unlock();
      }
    });
    f().events(client).awaitCount(WAITED, name, 1, f().slack());
    waiter.thread().interrupt();
    held.close();
    assertThat(waiter.join(f().slack())).as("interrupt flag after lock() returned").isTrue();
  }

  @Test
  default void eachReleaseWakesOneWaiter() throws InterruptedException {
    // One waiting thread per client: only release notifications move them (no polling), so every
    // wake-up is counted exactly, and a lost notification shows up as a waiter stuck past the slack.
    int waiters = 5;
    String name = f().name();
    LockClient holder = f().client();
    WakeUps w = releaseToQueuedWaiters(name, take(holder.lock(name)), waiters, 1);
    assertThat(w.released + f().events(holder).count(RELEASED, name))
        .as("releases: the holder's and each waiter's").isEqualTo(waiters + 1);
    assertThat(w.woken)
        .as("wake-ups: one per release that found a waiter (the holder's and the first %d"
            + " acquirers'; the last release found none)", waiters - 1)
        .isEqualTo(f().notifies() ? waiters : 0);
    assertThat(f().events(holder).count(WOKEN, name)).isZero();
  }

  @Test
  default void localQueuesHandOverWithoutPollingAndNeverWakeMoreThanReleases() throws InterruptedException {
    int clientCount = 3;
    int threadsPerClient = 3;
    String name = f().name();
    WakeUps w = releaseToQueuedWaiters(name, take(f().client().lock(name)), clientCount, threadsPerClient);
    // Not exact here: a client's next thread may find the lock free on its first try, so the
    // release before it needs no wake-up. But never more than one per release that had a waiter.
    assertThat(w.woken).as("wake-ups for %d releases that had a waiter", clientCount * threadsPerClient)
        .isBetween(f().notifies() ? 1 : 0, clientCount * threadsPerClient);
  }

  /** What the waiting clients counted. */
  final class WakeUps {
    int woken;
    int released;
  }

  /**
   * Queues {@code threadsPerClient} threads on each of {@code clientCount} fresh waiting clients
   * behind {@code held}, releases it once every thread waits, and lets each acquirer release at
   * once. Every waiter must get the lock with a newer token; returns what the clients counted.
   */
  private WakeUps releaseToQueuedWaiters(String name, Lease held, int clientCount, int threadsPerClient)
      throws InterruptedException {
    List<LockClient> clients = new ArrayList<>();
    List<Worker<Long>> workers = new ArrayList<>();
    Duration patience = f().patience();
    for (int i = 0; i < clientCount; i++) {
      LockClient client = f().waitingClient();
      DistributedLock lock = client.lock(name);
      clients.add(client);
      for (int t = 0; t < threadsPerClient; t++) {
        workers.add(f().start("waiter-" + i + "-" + t, () -> {
          try (Lease lease = lock.acquire(patience)) {
            return lease.token();
          }
        }));
      }
    }
    // Once every thread has waited, each client's head is queued at the server behind the holder.
    for (LockClient c : clients) {
      f().events(c).awaitCount(WAITED, name, threadsPerClient, f().slack());
    }
    held.close();
    Set<Long> tokens = new HashSet<>();
    for (Worker<Long> w : workers) {
      tokens.add(w.join(f().slack()));
    }
    assertThat(tokens).hasSize(workers.size()).allMatch(t -> t > held.token());
    WakeUps counted = new WakeUps();
    for (LockClient c : clients) {
      counted.woken += f().events(c).count(WOKEN, name);
      counted.released += f().events(c).count(RELEASED, name);
    }
    return counted;
  }
}
