package dev.dlock.testkit;

import static dev.dlock.testkit.EventRecorder.Kind.WAITED;
import static dev.dlock.testkit.EventRecorder.Kind.WOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedLock;
import dev.dlock.DistributedReadWriteLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A read-write lock: shared readers, an exclusive writer, no writer starvation, downgrade only. */
interface ReadWriteCases extends SuiteCase {

  private DistributedReadWriteLock rw(String name) {
    return f().client().readWriteLock(name);
  }

  @Test
  default void readersShareAndTheWriterExcludesThem() {
    String name = f().name();
    Lease r1 = take(rw(name).readLock(), "readers share");
    Lease r2 = take(rw(name).readLock(), "readers share");
    assertThat(r2.token()).isGreaterThan(r1.token());
    DistributedReadWriteLock writer = rw(name);
    assertThat(writer.writeLock().tryAcquire()).as("the writer while two read").isEmpty();
    r1.close();
    assertThat(writer.writeLock().tryAcquire()).as("the writer while one reads").isEmpty();
    r2.close();
    Lease w = take(writer.writeLock(), "both readers left");
    assertThat(rw(name).readLock().tryAcquire()).as("a reader while written").isEmpty();
    assertThat(rw(name).writeLock().tryAcquire()).as("a second writer").isEmpty();
    w.close();
    take(rw(name).readLock(), "the writer left").close();
  }

  @Test
  default void aQueuedWriterHoldsBackNewReaders() throws InterruptedException {
    String name = f().name();
    Lease reading = take(rw(name).readLock());
    LockClient writerClient = f().client();
    DistributedLock write = writerClient.readWriteLock(name).writeLock();
    Worker<Long> writer = f().start("writer", () -> {
      try (Lease lease = write.acquire(f().patience())) {
        return lease.token();
      }
    });
    f().events(writerClient).awaitCount(WAITED, name, 1, f().slack());
    DistributedLock lateReader = rw(name).readLock();
    assertThat(lateReader.tryAcquire()).as("a reader arriving after a queued writer").isEmpty();
    reading.close();
    assertThat(writer.join(f().patience())).isGreaterThan(reading.token());
    assertThat(lateReader.tryAcquire(f().patience())).hasValueSatisfying(Lease::close);
  }

  @Test
  default void aWritersReleaseLetsTheWaitingReadersInTogether() throws InterruptedException {
    String name = f().name();
    Lease writing = take(rw(name).writeLock());
    int readers = 3;
    CountDownLatch allIn = new CountDownLatch(readers);
    List<LockClient> clients = new ArrayList<>();
    List<Worker<Boolean>> workers = new ArrayList<>();
    for (int i = 0; i < readers; i++) {
      LockClient client = f().waitingClient();
      clients.add(client);
      DistributedLock read = client.readWriteLock(name).readLock();
      workers.add(f().start("reader-" + i, () -> {
        try (Lease lease = read.acquire(f().patience())) {
          allIn.countDown();
          return allIn.await(f().patience().toMillis(), TimeUnit.MILLISECONDS);
        }
      }));
      f().events(client).awaitCount(WAITED, name, 1, f().slack());
    }
    writing.close();
    for (Worker<Boolean> w : workers) {
      assertThat(w.join(f().patience())).as("every reader held the lock while the others did").isTrue();
    }
    if (f().notifies()) {
      for (LockClient c : clients) {
        assertThat(f().events(c).count(WOKEN, name)).as("wake-ups of one reader").isEqualTo(1);
      }
    }
  }

  @Test
  default void aWriterMayDowngradeToReading() {
    String name = f().name();
    DistributedReadWriteLock mine = rw(name);
    Lease write = take(mine.writeLock());
    Lease read = take(mine.readLock(), "the same thread holds the write lock");
    assertThat(read.token()).isGreaterThan(write.token());
    write.close();
    assertThat(rw(name).readLock().tryAcquire()).as("another reader after the downgrade")
        .hasValueSatisfying(Lease::close);
    assertThat(rw(name).writeLock().tryAcquire()).as("a writer while the downgraded reader reads").isEmpty();
    read.close();
    take(rw(name).writeLock(), "everybody left").close();
  }

  @Test
  default void aReaderAskingToWriteIsRefusedAtOnceInsteadOfDeadlocking() {
    String name = f().name();
    DistributedReadWriteLock mine = rw(name);
    DistributedLock read = mine.readLock();
    read.lock();
    try {
      assertThatThrownBy(() -> mine.writeLock().tryAcquire(f().patience()))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining(name)
          .hasMessageContaining("upgrad");
      assertThatThrownBy(() -> mine.writeLock().lock()).isInstanceOf(IllegalStateException.class);
      assertThat(read.holdCount()).isEqualTo(1);
    } finally {
      read.unlock();
    }
    take(mine.writeLock(), "the reader left").close();
  }

  @Test
  default void threadsOfOneClientReadTogetherEachWithItsOwnReentrantHold() {
    String name = f().name();
    DistributedLock read = rw(name).readLock();
    read.lock();
    read.lock();
    try {
      Worker<Integer> other = f().start("second-reader", () -> {
        read.lock();
        try {
          return read.holdCount();
        } finally {
          read.unlock();
        }
      });
      assertThat(other.join(f().patience())).isEqualTo(1);
      assertThat(read.holdCount()).isEqualTo(2);
    } finally {
      read.unlock();
      read.unlock();
    }
    assertThat(read.holdCount()).isZero();
  }
}
