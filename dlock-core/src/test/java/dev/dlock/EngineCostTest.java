package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.mem.MemServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What costs a backend call: reentry costs none, renewal batches, bad input never reaches it. */
class EngineCostTest {
  private final MemServer server = MemServer.create(Ticker.system());

  @Test
  void reentryCostsNoBackendCall() throws Exception {
    CountingBackend backend = new CountingBackend(server.newBackend());
    try (LockClient client = LockClient.builder().backend(backend).build()) {
      DistributedLock lock = client.lock("job");
      lock.lock();
      int afterFirst = backend.calls();
      for (int i = 0; i < 100; i++) {
        lock.lock();
      }
      try (Lease lease = lock.acquire()) {
        assertThat(lease.isValid()).isTrue();
      }
      for (int i = 0; i < 100; i++) {
        lock.unlock();
      }
      assertThat(backend.calls()).isEqualTo(afterFirst);
      lock.unlock();
      assertThat(backend.releases.get()).isEqualTo(1);
    }
  }

  @Test
  void allHeldLeasesAreRenewedInOneCallPerPeriod() throws Exception {
    CountingBackend backend = new CountingBackend(server.newBackend());
    CountDownLatch renewals = new CountDownLatch(5 * 3);
    LockListener listener = new LockListener() {
      @Override
      public void renewed(String name, long token) {
        renewals.countDown();
      }
    };
    try (LockClient client = LockClient.builder().backend(backend).leaseTime(Duration.ofMillis(300))
        .listener(listener).build()) {
      List<Lease> leases = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        leases.add(client.lock("job-" + i).acquire());
      }
      assertThat(renewals.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(backend.renewBatchSizes).allMatch(size -> size == 5);
      assertThat(leases).allMatch(Lease::isValid);
      for (Lease lease : leases) {
        lease.close();
      }
    }
  }

  @Test
  void badInputIsRejectedBeforeAnyBackendCall() {
    CountingBackend backend = new CountingBackend(server.newBackend());
    try (LockClient client = LockClient.builder().backend(backend).build()) {
      assertThatThrownBy(() -> client.lock(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("name");
      assertThatThrownBy(() -> client.lock("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
      assertThatThrownBy(() -> client.lock("x".repeat(257)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("256").hasMessageContaining("257");
      assertThatThrownBy(() -> client.lock("a", Duration.ofSeconds(-1)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime").hasMessageContaining("PT-1S");
      assertThatThrownBy(() -> client.lock("a", Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime").hasMessageContaining("PT0S");
      assertThatThrownBy(() -> client.lock("a", Duration.ofDays(100_000)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime").hasMessageContaining("PT2400000H");
      assertThatThrownBy(() -> client.lock("a", Duration.ofMillis(5)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime").hasMessageContaining("PT0.005S");
      assertThatThrownBy(() -> client.lock("a").acquire(Duration.ofMillis(-1)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWait").hasMessageContaining("PT-0.001S");
      assertThatThrownBy(() -> client.lock("a").tryAcquire(null))
          .isInstanceOf(NullPointerException.class).hasMessageContaining("maxWait");
      assertThatThrownBy(() -> client.lock("a").tryAcquire(Duration.ofDays(400)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWait");
      assertThat(backend.calls()).isZero();
    }
  }

  @Test
  void builderRejectsBadSettingsNamingThem() {
    assertThatThrownBy(() -> LockClient.builder().leaseTime(Duration.ofSeconds(-5)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("leaseTime must be positive: PT-5S");
    assertThatThrownBy(() -> LockClient.builder().clientName("a:b"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a:b'");
    assertThatThrownBy(() -> LockClient.builder().maxPollInterval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxPollInterval");
    assertThatThrownBy(() -> LockClient.builder().build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("url");
  }
}
