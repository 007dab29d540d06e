package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.LockListener;
import dev.dlock.NotOwnerException;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockInfo;
import dev.dlock.testkit.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's loss deadline, the immediate renewal of a grant found late, re-checks after a
 * reconnect and abandoned thread holds, on {@link VirtualTime} and a {@code mem:} server on the
 * same clock: each step is exact, and no lease runs out in real time. What waits in real time is
 * a hand-over between threads: a round on its own thread, a release on the client's clean-up thread.
 */
class LossDeadlineTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  /** For the hand-over to another thread only; a healthy engine answers at once. */
  private static final long PATIENCE_SECONDS = 10;
  private final VirtualTime time = new VirtualTime();
  private final MemServer server = MemServer.create(time.ticker());
  private final List<LockClient> clients = new ArrayList<>();
  private final SeparateRounds separateRounds = new SeparateRounds(time);

  @AfterEach
  void close() {
    clients.forEach(LockClient::close);
    separateRounds.shutdownNow();
  }

  private LockClient client(LockBackend backend, Duration lease, LockListener... listeners) {
    return client(backend, lease, time.scheduler(), listeners);
  }

  private LockClient client(LockBackend backend, Duration lease, ScheduledExecutorService scheduler,
      LockListener... listeners) {
    LockClientBuilder b = LockClient.builder().backend(backend).leaseTime(lease)
        .ticker(time.ticker()).scheduler(scheduler);
    for (LockListener l : listeners) {
      b.listener(l);
    }
    LockClient c = b.build();
    clients.add(c);
    return c;
  }

  private TapBackend backend() {
    return new TapBackend(server.newBackend());
  }

  private long now() {
    return time.ticker().read();
  }

  @Test
  void aHungRenewalDoesNotDelayTheLossSignalPastTheDeadline() throws Exception {
    Duration lease = Duration.ofSeconds(1);
    TapBackend hanging = backend();
    hanging.hangRenewals = true;
    LockClient a = client(hanging, lease, separateRounds);
    LockClient b = client(backend(), LEASE);
    long start = now();
    Lease held = a.lock("job").acquire();
    long deadline = held.validUntilNanos();
    AtomicLong lostAt = new AtomicLong();
    held.onLost(e -> lostAt.set(now()));

    time.advance(lease.dividedBy(3)); // the first round starts on the rounds thread, and hangs
    assertThat(hanging.renewHung.await(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("a hung renewal").isTrue();
    time.advance(Duration.ofNanos(deadline - now() - 1));
    assertThat(lostAt.get()).as("the loss notice before the deadline").isZero();
    time.advance(Duration.ofNanos(1));
    assertThat(lostAt.get()).as("the loss notice, at the deadline, while the renewal hangs")
        .isEqualTo(deadline).isLessThan(start + lease.toNanos());
    assertThat(held.isValid()).isFalse();

    assertThat(hanging.released.poll(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("the release the loss sends")
        .isNotNull();
    Optional<Lease> next = b.lock("job").tryAcquire();
    assertThat(next).as("the lock once its holder was told").isPresent();
    assertThat(next.get().token()).isGreaterThan(held.token());
    assertThat(hanging.renewLeases).as("renewal calls: only the one that hangs").hasSize(1);
    assertThat(hanging.renewBounds).as("each renewal call is bounded by the time left on the lease")
        .allSatisfy(bound -> assertThat(bound).isLessThanOrEqualTo(lease));
  }

  @Test
  void aFixedLeaseThatRunsOutIsReleasedAtTheServer() throws Exception {
    TapBackend backend = backend();
    LockClient a = client(backend, LEASE);
    LockClient b = client(backend(), LEASE);
    Lease lease = a.lock("job", Duration.ofMillis(300)).acquire();

    time.advance(Duration.ofNanos(lease.validUntilNanos() - now())); // short of the server's 300 ms
    assertThat(lease.lost().toCompletableFuture().getNow(null)).as("the loss at the deadline").isNotNull();
    Grant released = backend.released.poll(PATIENCE_SECONDS, TimeUnit.SECONDS); // the clean-up thread's
    assertThat(released).as("the release sent when the fixed lease ran out").isNotNull();
    assertThat(released.token()).isEqualTo(lease.token());
    assertThat(b.lock("job").tryAcquire()).as("the lock before the server's lease would have ended")
        .isPresent();
  }

  /**
   * A session-bound grant found with less than two thirds of the lease left (a ZooKeeper waiter
   * whose session last reached the leader a while ago) has less time than a renewal round is
   * allowed; waiting for the next third-of-a-lease tick could let it run out, so it is renewed at
   * once.
   */
  @Test
  void aGrantWithLessThanTwoThirdsOfTheLeaseLeftIsRenewedAtOnce() throws Exception {
    TapBackend backend = backend();
    backend.sessionLease = LEASE;
    backend.shortGrant = Duration.ofSeconds(12); // past a third of the lease, short of two
    LockClient a = client(backend, LEASE);
    long start = now();
    Lease held = a.lock("found-late").acquire();
    long shortEnd = held.validUntilNanos();
    assertThat(shortEnd - start).as("nanos the grant was found with")
        .isLessThan(Duration.ofSeconds(12).toNanos());

    time.runDue(); // the clock stands still: the next tick is 10 s away
    assertThat(backend.renewLeases).as("renewals right after a grant with 12 s of a 30 s lease left")
        .containsExactly(LEASE);
    assertThat(held.validUntilNanos()).as("the end after the renewal").isGreaterThan(shortEnd);
    time.advance(Duration.ofNanos(shortEnd - now()));
    assertThat(held.isValid()).as("the hold where the short grant would have run out").isTrue();
  }

  @Test
  void aReconnectReChecksEveryLeaseAtOnceAndKeepsFixedLeasesEnds() throws Exception {
    TapBackend backend = backend();
    LockClient a = client(backend, LEASE);
    Lease watched = a.lock("watched").acquire();
    Lease fixed = a.lock("fixed", Duration.ofSeconds(20)).acquire();
    long fixedEnd = fixed.validUntilNanos();
    time.advance(Duration.ofSeconds(1));
    assertThat(backend.renewLeases).as("renewals before the reconnect").isEmpty();

    backend.context.reconnected("a test reconnect");
    time.runDue();

    assertThat(backend.renewLeases).as("the re-check: the watched lease renewed, the fixed one verified")
        .containsExactlyInAnyOrder(LEASE, Duration.ofNanos(fixedEnd - now()));
    assertThat(fixed.validUntilNanos()).as("a re-check never moves a fixed lease's end").isEqualTo(fixedEnd);
    assertThat(watched.isValid()).isTrue();
    assertThat(fixed.isValid()).isTrue();
  }

  @Test
  void aLeaseTheServerForgotIsLostAtTheReCheckAfterAReconnect() throws Exception {
    TapBackend backend = backend();
    LockClient a = client(backend, LEASE);
    Lease lease = a.lock("job").acquire();
    LockInfo info = a.inspect("job").orElseThrow();
    assertThat(backend.delegate.release(new Grant("job", info.owner(), info.token()))).isTrue();

    backend.context.reconnected("a failover");
    time.runDue();

    LeaseLostException lost = lease.lost().toCompletableFuture().getNow(null);
    assertThat(lost).as("the loss, with no time passed").isInstanceOf(NotOwnerException.class)
        .hasMessageContaining("'job'");
  }

  @Test
  void aThreadThatEndsHoldingAThreadOwnedLockAbandonsItAtTheNextRenewal() throws Exception {
    AtomicReference<String> abandoned = new AtomicReference<>();
    LockListener listener = new LockListener() {
      @Override
      public void abandoned(String name, long token, String threadName) {
        abandoned.set(name + "/" + threadName);
      }
    };
    Duration lease = Duration.ofMillis(300);
    LockClient a = client(backend(), lease, listener);
    LockClient b = client(backend(), LEASE);
    DistributedLock threadOwned = a.lock("thread-owned");
    DistributedLock handleOwned = a.lock("handle-owned");
    CompletableFuture<Lease> handle = new CompletableFuture<>();
    Thread worker = new Thread(() -> {
      threadOwned.lock();
      try {
        handle.complete(handleOwned.acquire());
      } catch (InterruptedException e) {
        handle.completeExceptionally(e);
      }
    }, "worker-7");
    worker.start();
    worker.join();

    time.advance(lease.dividedBy(3).minusNanos(1));
    assertThat(abandoned.get()).as("abandoned before the first round").isNull();
    time.advance(Duration.ofNanos(1));
    assertThat(abandoned.get()).isEqualTo("thread-owned/worker-7");
    assertThat(b.lock("thread-owned").tryAcquire()).as("the abandoned lock, long before its lease ends")
        .isPresent();
    Lease kept = handle.getNow(null);
    time.advance(lease.multipliedBy(3));
    assertThat(kept.isValid()).as("a lease handle outlives the thread that took it").isTrue();
    assertThat(b.lock("handle-owned").tryAcquire()).isEmpty();
    kept.close();
  }
}
