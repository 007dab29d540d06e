package dev.dlock.testkit;

import static dev.dlock.testkit.EventRecorder.Kind.ACQUIRED;
import static dev.dlock.testkit.EventRecorder.Kind.WAITED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Many threads over several clients: mutual exclusion must hold exactly, on platform and virtual threads. */
interface ContentionCases extends SuiteCase {
  int FUZZ_THREADS = 16;
  int FUZZ_CLIENTS = 4;
  int FUZZ_ITERATIONS = 100;
  int VIRTUAL_THREADS = 1000;
  int VT_CLIENTS = 4;
  long NO_TOKEN = Long.MIN_VALUE;

  /**
   * State that only the distributed lock guards. The counter is a plain field updated by read,
   * yield, write, so two holders at once lose an update; the flag catches the overlap directly.
   */
  final class Guarded {
    final String name;
    final AtomicBoolean inside = new AtomicBoolean();
    final AtomicInteger overlaps = new AtomicInteger();
    final AtomicInteger tokenRegressions = new AtomicInteger();
    long counter;
    long lastToken = Long.MIN_VALUE;
    long expected;

    Guarded(String name) {
      this.name = name;
    }

    void critical(long token) {
      if (!inside.compareAndSet(false, true)) {
        overlaps.incrementAndGet();
      }
      long read = counter;
      Thread.yield();
      counter = read + 1;
      // Grants are serialised by the lock, so a token must exceed every earlier one we saw.
      if (token != NO_TOKEN) {
        if (token <= lastToken) {
          tokenRegressions.incrementAndGet();
        }
        lastToken = token;
      }
      inside.set(false);
    }

    void assertExact() {
      assertThat(overlaps.get()).as("critical sections of '%s' that overlapped", name).isZero();
      assertThat(tokenRegressions.get()).as("grants of '%s' with a token not above the last", name)
          .isZero();
      assertThat(counter).as("increments of '%s' that survived", name).isEqualTo(expected);
    }
  }

  private Guarded[] twoNames() {
    return new Guarded[] {new Guarded(f().name("even")), new Guarded(f().name("odd"))};
  }

  private LockClient[] clients(int n) {
    LockClient[] clients = new LockClient[n];
    for (int i = 0; i < n; i++) {
      clients[i] = f().client();
    }
    return clients;
  }

  @Test
  default void mutualExclusionHoldsUnderContention() throws InterruptedException {
    Guarded[] guarded = twoNames();
    LockClient[] clients = clients(FUZZ_CLIENTS);
    CountDownLatch go = new CountDownLatch(1);
    Duration patience = f().patience();
    List<Worker<Void>> workers = new ArrayList<>();
    for (int t = 0; t < FUZZ_THREADS; t++) {
      int id = t;
      LockClient client = clients[t % FUZZ_CLIENTS];
      DistributedLock[] locks = {client.lock(guarded[0].name), client.lock(guarded[1].name)};
      for (int i = 0; i < FUZZ_ITERATIONS; i++) {
        guarded[(id + i) % 2].expected++;
      }
      workers.add(f().start("fuzz-" + t, () -> {
        go.await();
        for (int i = 0; i < FUZZ_ITERATIONS; i++) {
          Guarded g = guarded[(id + i) % 2];
          DistributedLock lock = locks[(id + i) % 2];
          switch ((id + i / 2) % 3) {
            case 0 -> {
              lock.lock();
              try {
                g.critical(NO_TOKEN);
              } finally {
                lock.unlock();
              }
            }
            case 1 -> {
              try (Lease lease = lock.acquire(patience)) {
                g.critical(lease.token());
              }
            }
            default -> {
              if (!lock.tryLock(patience.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("tryLock timed out on '" + g.name + "'");
              }
              try {
                g.critical(NO_TOKEN);
              } finally {
                lock.unlock();
              }
            }
          }
        }
        return null;
      }));
    }
    go.countDown();
    for (Worker<Void> w : workers) {
      w.join(patience);
    }
    for (Guarded g : guarded) {
      g.assertExact();
    }
  }

  @Test
  @Tag("virtual-threads")
  default void aThousandVirtualThreadsContend() throws Exception {
    ExecutorService threads = VirtualThreads.newPerTaskExecutor();
    try {
      Guarded[] guarded = twoNames();
      LockClient[] clients = clients(VT_CLIENTS);
      AtomicInteger notVirtual = new AtomicInteger();
      Duration patience = f().patience();
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < VIRTUAL_THREADS; i++) {
        Guarded g = guarded[(i / VT_CLIENTS) % 2];
        g.expected++;
        DistributedLock lock = clients[i % VT_CLIENTS].lock(g.name);
        boolean leaseView = (i / 8) % 2 == 1;
        done.add(threads.submit((Callable<Void>) () -> {
          if (!VirtualThreads.isVirtual(Thread.currentThread())) {
            notVirtual.incrementAndGet();
          }
          if (leaseView) {
            Lease lease = lock.acquire(patience);
            g.critical(lease.token());
            // The Lease view belongs to the handle, so another virtual thread may release it.
            threads.submit(lease::close).get();
            if (lease.isValid()) {
              throw new AssertionError("a lease closed by another virtual thread is still valid");
            }
          } else {
            lock.lock();
            try {
              g.critical(NO_TOKEN);
            } finally {
              lock.unlock();
            }
          }
          return null;
        }));
      }
      long deadline = Ticker.system().read() + patience.toNanos();
      for (Future<?> d : done) {
        awaitTask(d, deadline);
      }
      assertThat(notVirtual.get()).as("tasks that did not run on a virtual thread").isZero();
      for (Guarded g : guarded) {
        g.assertExact();
      }
    } finally {
      threads.shutdownNow();
      threads.awaitTermination(f().slack().toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private static void awaitTask(Future<?> task, long deadlineNanos) throws InterruptedException {
    try {
      task.get(Math.max(0, deadlineNanos - Ticker.system().read()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("a virtual thread failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("the virtual threads did not all finish in time", e);
    }
  }

  /**
   * Two more threads of the holder's client queue for its lock: one competes at the backend, the
   * other waits behind it in the client. The release lets them in one after the other, each with a
   * token above the one before, whether the engine hands the grant on or the backend grants anew.
   */
  @Test
  default void threadsOfTheHoldersClientTakeTheLockInTurnWithRisingTokens() throws InterruptedException {
    LockClient client = f().client();
    String name = f().name();
    DistributedLock lock = client.lock(name);
    Duration patience = f().patience();
    Guarded guarded = new Guarded(name);
    guarded.expected = 2;
    Lease first = take(lock);
    guarded.lastToken = first.token();
    List<Worker<Long>> waiters = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      waiters.add(f().start("local-waiter-" + i, () -> {
        try (Lease l = lock.acquire(patience)) {
          guarded.critical(l.token());
          return l.token();
        }
      }));
      f().events(client).awaitCount(WAITED, name, i + 1, patience);
    }
    first.close();
    for (Worker<Long> w : waiters) {
      assertThat(w.join(patience)).as("a waiter's token").isGreaterThan(first.token());
    }
    guarded.assertExact();
    assertThat(f().events(client).count(ACQUIRED, name)).as("grants of '%s'", name).isEqualTo(3);
    assertThat(lock.tryAcquire()).as("the lock after the last waiter's release").isPresent()
        .hasValueSatisfying(Lease::close);
  }
}
