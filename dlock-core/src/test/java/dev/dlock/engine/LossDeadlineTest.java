package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.LockListener;
import dev.dlock.NotOwnerException;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockInfo;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The loss deadline, the wait deadline, re-checks after a reconnect and abandoned thread holds, on
 * the in-memory server in real time, with calls that hang as calls to a frozen server do. Renewal
 * cadence, expiry, session loss and release retries on virtual time are in the testkit's {@code VirtualTimeTest}.
 */
class LossDeadlineTest {
  private static final Duration SLACK = Duration.ofSeconds(3);
  private final MemServer server = MemServer.create(Ticker.system());
  private final List<LockClient> clients = new ArrayList<>();

  @AfterEach
  void close() {
    clients.forEach(LockClient::close);
  }

  private LockClient client(StallingBackend backend, Duration lease, LockListener... listeners) {
    LockClientBuilder b = LockClient.builder().backend(backend).leaseTime(lease);
    for (LockListener l : listeners) {
      b.listener(l);
    }
    LockClient c = b.build();
    clients.add(c);
    return c;
  }

  private StallingBackend backend() {
    return new StallingBackend(server.newBackend());
  }

  @Test
  void aHungRenewalDoesNotDelayTheLossSignalPastTheDeadline() throws Exception {
    StallingBackend stalling = backend();
    LockClient a = client(stalling, Duration.ofSeconds(1));
    LockClient b = client(backend(), Duration.ofSeconds(30));
    stalling.stallRenew = true;
    stalling.ignoreBound = true;
    Lease lease = a.lock("job").acquire();
    AtomicLong lostAt = new AtomicLong();
    lease.onLost(e -> lostAt.set(System.nanoTime()));
    assertThat(stalling.renewStalled.await(SLACK.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

    Lease next = b.lock("job").acquire(SLACK);
    long grantedAt = System.nanoTime();

    assertThat(lostAt.get()).as("the holder heard of the loss before the next grant").isNotZero()
        .isLessThan(grantedAt);
    assertThat(lease.isValid()).isFalse();
    assertThat(stalling.unstall.getCount()).as("the hung renewal never returned").isEqualTo(1);
    assertThat(stalling.renewBounds).as("each renewal call is bounded by the time left on the lease")
        .allSatisfy(bound -> assertThat(bound).isLessThanOrEqualTo(Duration.ofSeconds(1)));
    next.close();
  }

  @Test
  void aFixedLeaseThatRunsOutIsReleasedAtTheServer() throws Exception {
    StallingBackend stalling = backend();
    LockClient a = client(stalling, Duration.ofSeconds(30));
    Lease lease = a.lock("job", Duration.ofMillis(300)).acquire();
    lease.lost().toCompletableFuture().get(SLACK.toMillis(), TimeUnit.MILLISECONDS);
    Grant released = stalling.released.poll(SLACK.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(released).as("the release sent when the fixed lease ran out").isNotNull();
    assertThat(released.token()).isEqualTo(lease.token());
  }

  /**
   * A session-bound grant found with less than two thirds of the lease left (a ZooKeeper waiter
   * whose session last reached the leader a while ago) has less time than a renewal round is
   * allowed; waiting for the next third-of-a-lease tick could let it run out, so it is renewed at
   * once.
   */
  @Test
  void aGrantWithLessThanTwoThirdsOfTheLeaseLeftIsRenewedAtOnce() throws Exception {
    StallingBackend stalling = backend();
    stalling.sessionLease = Duration.ofSeconds(30);
    stalling.shortGrant = Duration.ofSeconds(12); // past a third of the lease, short of two
    LockClient a = client(stalling, Duration.ofSeconds(30));
    stalling.renewLeases.clear();
    Lease held = a.lock("found-late").acquire();

    // The first tick is 10 s away: a renewal within the slack is the one the short grant asked for.
    assertThat(stalling.renewLeases.poll(SLACK.toMillis(), TimeUnit.MILLISECONDS))
        .as("a renewal right after a grant with 12 s of a 30 s lease left").isNotNull();
    assertThat(held.isValid()).isTrue();
  }

  @Test
  void aReconnectReChecksEveryLeaseAtOnceAndKeepsFixedLeasesEnds() throws Exception {
    StallingBackend stalling = backend();
    LockClient a = client(stalling, Duration.ofSeconds(30));
    Lease watched = a.lock("watched").acquire();
    Lease fixed = a.lock("fixed", Duration.ofSeconds(20)).acquire();
    long fixedEnd = fixed.validUntilNanos();

    stalling.context.reconnected("a test reconnect");

    List<Duration> leases = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Duration lease = stalling.renewLeases.poll(SLACK.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(lease).as("renewal %d after the reconnect", i + 1).isNotNull();
      leases.add(lease);
    }
    assertThat(leases).contains(Duration.ofSeconds(30));
    assertThat(leases).anySatisfy(d -> assertThat(d).isLessThan(Duration.ofSeconds(20)));
    assertThat(fixed.validUntilNanos()).as("a re-check never moves a fixed lease's end").isEqualTo(fixedEnd);
    assertThat(watched.isValid()).isTrue();
    assertThat(fixed.isValid()).isTrue();
  }

  @Test
  void aLeaseTheServerForgotIsLostAtTheReCheckAfterAReconnect() throws Exception {
    StallingBackend stalling = backend();
    LockClient a = client(stalling, Duration.ofSeconds(30));
    Lease lease = a.lock("job").acquire();
    LockInfo info = a.inspect("job").orElseThrow();
    assertThat(stalling.delegate.release(new Grant("job", info.owner(), info.token()))).isTrue();

    stalling.context.reconnected("a failover");

    LeaseLostException lost = lease.lost().toCompletableFuture().get(SLACK.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(lost).isInstanceOf(NotOwnerException.class).hasMessageContaining("'job'");
  }

  @Test
  void aThreadThatEndsHoldingAThreadOwnedLockAbandonsItAtTheNextRenewal() throws Exception {
    AtomicReference<String> abandoned = new AtomicReference<>();
    CountDownLatch heard = new CountDownLatch(1);
    LockListener listener = new LockListener() {
      @Override
      public void abandoned(String name, long token, String threadName) {
        abandoned.set(name + "/" + threadName);
        heard.countDown();
      }
    };
    LockClient a = client(backend(), Duration.ofMillis(300), listener);
    LockClient b = client(backend(), Duration.ofSeconds(30));
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

    assertThat(heard.await(SLACK.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    assertThat(abandoned.get()).isEqualTo("thread-owned/worker-7");
    b.lock("thread-owned").acquire(SLACK).close();
    Lease lease = handle.get();
    assertThat(lease.isValid()).as("a lease handle outlives the thread that took it").isTrue();
    assertThat(b.lock("handle-owned").tryAcquire()).isEmpty();
    lease.close();
  }

  @Test
  void anAcquireCallToAHungServerEndsByTheCallersDeadline() {
    StallingBackend stalling = backend();
    LockClient a = client(stalling, Duration.ofSeconds(30));
    stalling.stallAcquire = true;
    long start = System.nanoTime();
    assertThatThrownBy(() -> a.lock("job").tryAcquire(Duration.ofSeconds(1)))
        .isInstanceOf(BackendUnavailableException.class);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).isLessThan(Duration.ofMillis(1_750));
    assertThat(stalling.acquireBounds).first()
        .satisfies(bound -> assertThat(bound).isLessThanOrEqualTo(Duration.ofSeconds(1)));
  }

  @Test
  void aCancelToAHungServerDoesNotHoldUpTheCallerWhoseWaitRanOut() throws Exception {
    StallingBackend stalling = backend();
    LockClient a = client(stalling, Duration.ofSeconds(30));
    LockClient b = client(backend(), Duration.ofSeconds(30));
    Lease held = b.lock("job").acquire();
    stalling.stallCancel = true;
    long start = System.nanoTime();
    assertThat(a.lock("job").tryAcquire(Duration.ofMillis(500))).isEmpty();
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).as("a wait of 500 ms whose cancel hangs").isLessThan(Duration.ofMillis(1_250));
    held.close();
  }

  @Test
  void aNameThatIsNotValidUnicodeIsRefusedNamingThePosition() {
    LockClient a = client(backend(), Duration.ofSeconds(30));
    assertThatThrownBy(() -> a.lock("ab\uD800"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lone surrogate \\uD800 at index 2");
    assertThatThrownBy(() -> a.lock("\uDBFFx", Duration.ofSeconds(1)))
        .hasMessageContaining("\\uDBFF at index 0");
    assertThatThrownBy(() -> a.lock("x\uDC00y")).hasMessageContaining("\\uDC00 at index 1");
    assertThat(a.lock("emoji-\uD83D\uDD12").name()).endsWith("\uD83D\uDD12");
  }

  @Test
  void ownerIdsCarry128RandomBits() {
    LockClient a = client(backend(), Duration.ofSeconds(30));
    assertThat(a.id()).matches("dlock-[0-9a-f]{32}");
  }
}
