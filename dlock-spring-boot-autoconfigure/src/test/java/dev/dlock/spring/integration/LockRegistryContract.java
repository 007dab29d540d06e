package dev.dlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * What Spring Integration expects of a LockRegistry, as its tests of JdbcLockRegistry and
 * RedisLockRegistry check, run on a real backend by each subclass.
 *
 * <p>Why two clients: each stands for a machine, so exclusion between them is what a cluster sees.
 * Waits are observed through the client's {@code waited} event, so no test sleeps.
 */
abstract class LockRegistryContract {
  private static final long SECONDS = 10;

  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final Semaphore waits = new Semaphore(0);
  private final Semaphore otherWaits = new Semaphore(0);
  private LockClient client;
  private LockClient otherClient;
  private DlockLockRegistry registry;
  private DlockLockRegistry other;
  private String key;

  /** A dlock URL of the backend; every client made on it shares its locks. */
  abstract String url();

  @BeforeEach
  void machines(TestInfo test) {
    client = client(waits);
    otherClient = client(otherWaits);
    registry = new DlockLockRegistry(client);
    other = new DlockLockRegistry(otherClient);
    key = "registry-" + test.getTestMethod().orElseThrow().getName();
  }

  @AfterEach
  void close() {
    threads.shutdownNow();
    client.close();
    otherClient.close();
  }

  private LockClient client(Semaphore waited) {
    return LockClient.builder().url(url()).listener(new LockListener() {
      @Override
      public void waited(String name) {
        waited.release();
      }
    }).build();
  }

  @Test
  void theSameKeyGivesTheSameLockNamedByItsStringForm() {
    DistributedLock lock = registry.obtain(key);
    assertThat(registry.obtain(key)).isSameAs(lock);
    assertThat(registry.obtain(new StringBuilder(key))).isSameAs(lock);
    assertThat(lock.name()).isEqualTo(key);
    assertThat(registry.obtain(42).name()).isEqualTo("42");
    assertThat(registry.obtain(key + "-2")).isNotSameAs(lock);
  }

  @Test
  void locksNoLongerReferencedAreDropped() {
    DistributedLock kept = registry.obtain(key);
    for (int i = 0; i < 1000; i++) {
      registry.obtain(key + i);
    }
    for (int i = 0; i < 100 && registry.cached() > 1; i++) {
      System.gc();
    }
    assertThat(registry.cached()).isEqualTo(1);
    assertThat(registry.obtain(key)).isSameAs(kept);
  }

  @Test
  void badKeysAreRefusedNamingThem() {
    assertThatThrownBy(() -> registry.obtain(null))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("lockKey must not be null: null");
    assertThatThrownBy(() -> registry.obtain(new StringBuilder()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lockKey '' is not a valid lock name").hasMessageContaining("empty");
    assertThatThrownBy(() -> registry.obtain("job\uD800"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lockKey 'job\uD800'").hasMessageContaining("surrogate");
    assertThatThrownBy(() -> registry.obtain("k".repeat(1000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lockKey '" + "k".repeat(57) + "...'").hasMessageContaining("at most");
  }

  @Test
  void lockAndUnlock() {
    DistributedLock lock = registry.obtain(key);
    lock.lock();
    try {
      assertThat(otherClient.inspect(key)).hasValueSatisfying(
          info -> assertThat(info.owner()).startsWith(client.id()));
    } finally {
      lock.unlock();
    }
    assertThat(otherClient.inspect(key)).isEmpty();
  }

  @Test
  void reentrantLock() {
    DistributedLock lock = registry.obtain(key);
    lock.lock();
    registry.obtain(key).lock();
    assertThat(lock.holdCount()).isEqualTo(2);
    lock.unlock();
    assertThat(other.obtain(key).tryLock()).as("held after one of two unlocks").isFalse();
    lock.unlock();
    assertThat(other.obtain(key).tryLock()).as("free after both").isTrue();
    other.obtain(key).unlock();
  }

  @Test
  void tryLockFromAnotherThreadFailsWhileHeldAndSucceedsAfterUnlock() throws Exception {
    DistributedLock lock = registry.obtain(key);
    lock.lock();
    assertThat(onOtherThread(() -> registry.obtain(key).tryLock())).isFalse();
    assertThat(onOtherThread(() -> lock.tryLock(100, TimeUnit.MILLISECONDS))).isFalse();
    lock.unlock();
    assertThat(onOtherThread(() -> {
      boolean got = lock.tryLock();
      if (got) {
        lock.unlock();
      }
      return got;
    })).isTrue();
  }

  @Test
  void unlockFromAThreadThatDoesNotHoldItThrows() throws Exception {
    DistributedLock lock = registry.obtain(key);
    lock.lock();
    try {
      Throwable thrown = onOtherThread(() -> catchThrowable(lock::unlock));
      assertThat(thrown).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(key);
      assertThat(other.obtain(key).tryLock()).as("still held").isFalse();
    } finally {
      lock.unlock();
    }
  }

  @Test
  void aContendingThreadGetsTheLockWhenItsHolderUnlocks() throws Exception {
    DistributedLock lock = registry.obtain(key);
    lock.lock();
    CountDownLatch got = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    Future<?> contender = threads.submit(() -> {
      lock.lockInterruptibly();
      got.countDown();
      done.await();
      lock.unlock();
      return null;
    });
    assertThat(waits.tryAcquire(SECONDS, TimeUnit.SECONDS)).as("the contender waits").isTrue();
    assertThat(got.getCount()).as("not granted while held").isOne();
    lock.unlock();
    assertThat(got.await(SECONDS, TimeUnit.SECONDS)).as("granted after unlock").isTrue();
    assertThat(other.obtain(key).tryLock()).isFalse();
    done.countDown();
    contender.get(SECONDS, TimeUnit.SECONDS);
    assertThat(other.obtain(key).tryLock()).isTrue();
    other.obtain(key).unlock();
  }

  @Test
  void twoRegistriesOnOneBackendExcludeEachOther() throws Exception {
    DistributedLock mine = registry.obtain(key);
    DistributedLock theirs = other.obtain(key);
    for (int i = 0; i < 3; i++) {
      mine.lock();
      assertThat(theirs.tryLock()).as("the other machine, same thread").isFalse();
      CountDownLatch got = new CountDownLatch(1);
      CountDownLatch done = new CountDownLatch(1);
      Future<?> contender = threads.submit(() -> {
        theirs.lockInterruptibly();
        got.countDown();
        done.await();
        theirs.unlock();
        return null;
      });
      assertThat(otherWaits.tryAcquire(SECONDS, TimeUnit.SECONDS)).as("round %d: waits", i).isTrue();
      assertThat(got.getCount()).as("round %d: not granted while held", i).isOne();
      mine.unlock();
      assertThat(got.await(SECONDS, TimeUnit.SECONDS)).as("round %d: granted", i).isTrue();
      assertThat(mine.tryLock()).as("round %d: held by the other machine", i).isFalse();
      done.countDown();
      contender.get(SECONDS, TimeUnit.SECONDS);
    }
    assertThat(mine.tryLock()).isTrue();
    mine.unlock();
  }

  @Test
  void lockInterruptiblyHonoursInterrupts() throws Exception {
    DistributedLock lock = registry.obtain(key);
    lock.lock();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicInteger holds = new AtomicInteger(-1);
    CountDownLatch ended = new CountDownLatch(1);
    Thread waiter = new Thread(() -> {
      thrown.set(catchThrowable(lock::lockInterruptibly));
      holds.set(lock.holdCount());
      ended.countDown();
    });
    waiter.start();
    assertThat(waits.tryAcquire(SECONDS, TimeUnit.SECONDS)).as("the waiter waits").isTrue();
    waiter.interrupt();
    assertThat(ended.await(SECONDS, TimeUnit.SECONDS)).as("the interrupt ends the wait").isTrue();
    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    assertThat(holds.get()).isZero();
    lock.unlock();
    assertThat(other.obtain(key).tryLock()).as("nothing left behind for the waiter").isTrue();
    other.obtain(key).unlock();

    Thread.currentThread().interrupt();
    assertThat(catchThrowable(lock::lockInterruptibly)).as("interrupted on entry")
        .isInstanceOf(InterruptedException.class);
    assertThat(Thread.interrupted()).as("the flag is cleared by the throw").isFalse();
    assertThat(lock.holdCount()).isZero();
  }

  @Test
  void executeLockedRunsUnderTheLock() throws Exception {
    String result = registry.executeLocked(key, () -> {
      assertThat(other.obtain(key).tryLock()).as("held while the task runs").isFalse();
      return "done";
    });
    assertThat(result).isEqualTo("done");
    assertThat(otherClient.inspect(key)).as("released after").isEmpty();

    other.obtain(key).lock();
    try {
      assertThatThrownBy(() -> registry.executeLocked(key, Duration.ofMillis(50), () -> { }))
          .isInstanceOf(TimeoutException.class).hasMessageContaining(key);
    } finally {
      other.obtain(key).unlock();
    }
  }

  private <T> T onOtherThread(Callable<T> task) throws Exception {
    return threads.submit(task).get(SECONDS, TimeUnit.SECONDS);
  }
}
