package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A caller's wait deadline against backend calls that hang as calls to a frozen server do, and the
 * checks of names and owner ids, on the in-memory server in real time: the engine's local waits are
 * {@code Condition.awaitNanos}, which no virtual clock moves. The loss deadline, renewal, expiry,
 * re-checks and abandoned holds run on virtual time in the testkit's tests ({@code
 * dev.dlock.engine.LossDeadlineTest}, {@code VirtualTimeTest}).
 */
class HungServerTest {
  private final MemServer server = MemServer.create(Ticker.system());
  private final List<LockClient> clients = new ArrayList<>();

  @AfterEach
  void close() {
    clients.forEach(LockClient::close);
  }

  private LockClient client(StallingBackend backend, Duration lease) {
    LockClient c = LockClient.builder().backend(backend).leaseTime(lease).build();
    clients.add(c);
    return c;
  }

  private StallingBackend backend() {
    return new StallingBackend(server.newBackend());
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
