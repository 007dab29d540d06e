package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.dlock.DistributedLock;
import dev.dlock.DistributedReadWriteLock;
import dev.dlock.HeldLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.spi.LockKind;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link LockClient#held()}: what this client holds, by whom, and for how long, on virtual time. */
class HeldTest extends DrivenClients {
  // Less the margin for clock drift, expiry granularity and the timer's delay: 1% of a 10 s lease and 20 ms.
  private static final Duration MARGIN = Duration.ofMillis(120);

  @Test
  void aLeaseIsListedWithItsTokenAndTimeLeftAndOwnedByTheHandle() throws Exception {
    try (Lease lease = a.lock("job", Duration.ofSeconds(10)).acquire()) {
      time.advance(Duration.ofSeconds(4));
      assertThat(a.held()).containsExactly(new HeldLock("job", LockKind.EXCLUSIVE, lease.token(),
          Duration.ofSeconds(6).minus(MARGIN), 1, HeldLock.HANDLE));
      assertThat(b.held()).as("another client's locks").isEmpty();
    }
    assertThat(a.held()).as("after release").isEmpty();
  }

  @Test
  void aLockTakenThroughTheLockMethodsIsOwnedByItsThreadWithItsHoldCount() throws Exception {
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    DistributedLock lock = a.lock("job");
    Thread worker = new Thread(() -> {
      lock.lock();
      lock.lock();
      locked.countDown();
      try {
        done.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        lock.unlock();
        lock.unlock();
      }
    }, "report-worker");
    worker.start();
    try {
      assertThat(locked.await(5, TimeUnit.SECONDS)).isTrue();
      HeldLock held = a.held().get(0);
      assertThat(held.owner()).isEqualTo("report-worker");
      assertThat(held.holdCount()).isEqualTo(2);
      assertThat(held.token()).isEqualTo(b.inspect("job").orElseThrow().token());
    } finally {
      done.countDown();
      worker.join();
    }
    assertThat(a.held()).isEmpty();
  }

  @Test
  void locksAreOrderedByNameAndEachPermitIsListed() throws Exception {
    DistributedReadWriteLock rw = a.readWriteLock("b-rw");
    try (Lease c = a.lock("c").acquire(); Lease write = rw.writeLock().acquire();
        Lease read = rw.readLock().acquire(); Lease p1 = a.semaphore("a-sem", 2).acquire();
        Lease p2 = a.semaphore("a-sem", 2).acquire()) {
      assertThat(a.held()).extracting(HeldLock::name, HeldLock::kind, HeldLock::token).containsExactly(
          tuple("a-sem", LockKind.PERMIT, p1.token()), tuple("a-sem", LockKind.PERMIT, p2.token()),
          tuple("b-rw", LockKind.READ, read.token()), tuple("b-rw", LockKind.WRITE, write.token()),
          tuple("c", LockKind.EXCLUSIVE, c.token()));
    }
  }

  @Test
  void aLeaseThatRanOutShowsNoTimeLeftUntilTheClientNoticesThenIsLeftOut() throws Exception {
    LockClient late = lateClient();
    Lease lease = late.lock("job", Duration.ofSeconds(10)).acquire();
    time.advance(Duration.ofSeconds(11));
    assertThat(late.held()).extracting(HeldLock::remaining).containsExactly(Duration.ZERO);
    assertThat(lease.isValid()).isFalse();
    assertThat(late.held()).isEmpty();
  }

  @Test
  void aClosedClientHoldsNothing() throws Exception {
    a.lock("job").acquire();
    a.close();
    assertThat(a.held()).isEmpty();
  }
}
