package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.LockException;
import dev.dlock.LockListener;
import dev.dlock.LockTimeoutException;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockListener#timedOut}: every acquire whose deadline passes fires it once, whatever the
 * kind of lock and wherever it waited; interrupts and failures do not.
 */
class TimedOutTest {
  private static final Duration WAIT = Duration.ofMillis(20);
  private final MemServer server = MemServer.create(Ticker.system());
  private final Recorder events = new Recorder();
  private final List<LockClient> clients = new ArrayList<>();
  private final LockClient holder = client(server.newBackend(), new Recorder());
  private final LockClient a = client(server.newBackend(), events);

  private LockClient client(LockBackend backend, LockListener listener) {
    LockClient c = LockClient.builder().backend(backend).listener(listener).build();
    clients.add(c);
    return c;
  }

  @AfterEach
  void close() {
    clients.forEach(LockClient::close);
  }

  @Test
  void everyCallWhoseDeadlinePassesFiresOnceWithTheTimeItWaited() throws Exception {
    holder.lock("job").acquire();
    DistributedLock lock = a.lock("job");
    assertThatThrownBy(() -> lock.acquire(WAIT)).isInstanceOf(LockTimeoutException.class);
    assertThat(lock.tryAcquire(WAIT)).isEmpty();
    assertThat(lock.tryAcquire()).isEmpty();
    assertThat(lock.tryLock()).isFalse();
    assertThat(lock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isFalse();

    assertThat(events.names()).containsExactly("job", "job", "job", "job", "job");
    List<Duration> waited = events.waited();
    for (int i : new int[] {0, 1, 4}) {
      assertThat(waited.get(i)).as("call %d", i).isGreaterThanOrEqualTo(WAIT);
    }
  }

  @Test
  void everyKindFires() throws Exception {
    holder.fairLock("fair").acquire();
    holder.readWriteLock("written").writeLock().acquire();
    holder.readWriteLock("read").readLock().acquire();
    holder.semaphore("sem", 1).acquire();

    assertThat(a.fairLock("fair").tryAcquire(WAIT)).isEmpty();
    assertThat(a.readWriteLock("written").readLock().tryAcquire(WAIT)).isEmpty();
    assertThat(a.readWriteLock("read").writeLock().tryAcquire()).isEmpty();
    assertThatThrownBy(() -> a.semaphore("sem", 1).acquire(WAIT)).isInstanceOf(LockTimeoutException.class);

    assertThat(events.names()).containsExactly("fair", "written", "read", "sem");
  }

  @Test
  void aWaitThatRunsOutInTheClientsOwnQueueFires() throws Exception {
    holder.lock("job").acquire();
    Waiter ahead = new Waiter(a.lock("job"));
    ahead.awaitWaiting();
    assertThat(a.lock("job").tryAcquire(WAIT)).as("behind a thread of its own client").isEmpty();
    assertThat(events.names()).containsExactly("job");
    ahead.interruptAndJoin();
  }

  @Test
  void anInterruptedWaitDoesNotFire() throws Exception {
    holder.lock("job").acquire();
    Waiter waiter = new Waiter(a.lock("job"));
    waiter.awaitWaiting();
    waiter.interruptAndJoin();
    assertThat(waiter.failure.get()).isInstanceOf(InterruptedException.class);
    assertThat(events.names()).isEmpty();
  }

  @Test
  void grantsAndFailuresDoNotFire() throws Exception {
    StallingBackend stalling = new StallingBackend(server.newBackend());
    Recorder stalled = new Recorder();
    LockClient hung = client(stalling, stalled);
    stalling.stallAcquire = true;
    assertThatThrownBy(() -> hung.lock("job").tryAcquire(Duration.ofMillis(200)))
        .isInstanceOf(BackendUnavailableException.class);

    a.lock("job").acquire(WAIT).close();
    a.close();
    assertThatThrownBy(() -> a.lock("job").tryAcquire()).isInstanceOf(LockException.class);

    assertThat(stalled.names()).isEmpty();
    assertThat(events.names()).isEmpty();
  }

  /** A thread of client {@code a} waiting for the lock for ever, once the client says it waits. */
  private final class Waiter {
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final Thread thread;

    Waiter(DistributedLock lock) {
      thread = new Thread(() -> {
        try {
          lock.acquire().close();
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      thread.start();
    }

    void awaitWaiting() throws InterruptedException {
      assertThat(events.waiting.await(5, TimeUnit.SECONDS)).as("the waiter waits").isTrue();
    }

    void interruptAndJoin() throws InterruptedException {
      thread.interrupt();
      thread.join();
    }
  }

  /** Records timeouts in order, and counts down once the client first waits. */
  private static final class Recorder implements LockListener {
    final CountDownLatch waiting = new CountDownLatch(1);
    private final List<String> names = new ArrayList<>();
    private final List<Duration> waited = new ArrayList<>();

    @Override
    public synchronized void timedOut(String name, Duration waited) {
      names.add(name);
      this.waited.add(waited);
    }

    @Override
    public void waited(String name) {
      waiting.countDown();
    }

    synchronized List<String> names() {
      return List.copyOf(names);
    }

    synchronized List<Duration> waited() {
      return List.copyOf(waited);
    }
  }
}
