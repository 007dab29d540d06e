package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.LeaderLatch;
import dev.dlock.LeaderListener;
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
 * Leader election over the mem backend: one leader at a time, hand-over on close. (A crashed or
 * lost leader's lease runs on virtual time, in the testkit's {@code LeaderLatchLeaseTest}.)
 */
class LeaderLatchTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);
  private final MemServer server = MemServer.create(Ticker.system());
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private LockClient client(Duration lease) {
    LockClient c = LockClient.builder().backend(server.newBackend()).leaseTime(lease).build();
    toClose.add(c);
    return c;
  }

  @Test
  void oneLeadsAndTheOtherTakesOverWhenTheLeaderCloses() throws Exception {
    LeaderEvents r1 = new LeaderEvents();
    LeaderEvents r2 = new LeaderEvents();
    LeaderLatch first = client(Duration.ofSeconds(30)).leaderLatch("leader", r1);
    assertThat(first.awaitLeadership(PATIENCE)).isTrue();
    long token = first.lease().orElseThrow().token();
    assertThat(r1.next()).isEqualTo("elected " + token);

    LeaderLatch second = client(Duration.ofSeconds(30)).leaderLatch("leader", r2);
    toClose.add(second);
    assertThat(second.awaitLeadership(Duration.ofMillis(200))).isFalse();
    assertThat(second.isLeader()).isFalse();

    first.close();
    assertThat(r1.next()).isEqualTo("resigned " + token);
    assertThat(first.isLeader()).isFalse();
    assertThat(first.lease()).isEmpty();
    assertThat(second.awaitLeadership(PATIENCE)).isTrue();
    assertThat(r2.next()).startsWith("elected ");
    assertThat(second.lease().orElseThrow().token()).isGreaterThan(token);

    first.close();
    assertThat(r1.isEmpty()).isTrue();
  }

  @Test
  void aThrowingListenerDoesNotStopTheElection() throws Exception {
    LeaderEvents r2 = new LeaderEvents();
    LeaderLatch first = client(Duration.ofSeconds(30)).leaderLatch("throws", new LeaderListener() {
      @Override
      public void elected(Lease lease) {
        throw new IllegalStateException("listener bug");
      }
    });
    assertThat(first.awaitLeadership(PATIENCE)).isTrue();
    LeaderLatch second = client(Duration.ofSeconds(30)).leaderLatch("throws", r2);
    toClose.add(second);
    first.close();
    assertThat(r2.next()).startsWith("elected ");
  }

  @Test
  void closingFromTheElectedCallbackResignsWithoutDeadlock() throws Exception {
    LeaderEvents after = new LeaderEvents();
    LeaderLatch[] self = new LeaderLatch[1];
    Object started = new Object();
    LeaderLatch latch;
    synchronized (started) {
      latch = client(Duration.ofSeconds(30)).leaderLatch("self-close", new LeaderListener() {
        @Override
        public void elected(Lease lease) {
          synchronized (started) {
            self[0].close();
          }
        }

        @Override
        public void resigned(Lease lease) {
          after.resigned(lease);
        }
      });
      self[0] = latch;
    }
    assertThat(after.next()).startsWith("resigned ");
    assertThat(latch.isLeader()).isFalse();
    assertThat(latch.awaitLeadership(Duration.ofMillis(50))).isFalse();
  }

  @Test
  void closingWhileWaitingForTheLockWithdrawsAtOnce() throws Exception {
    LockClient holder = client(Duration.ofSeconds(30));
    Lease held = holder.lock("busy").acquire();
    LeaderEvents r = new LeaderEvents();
    LeaderLatch waiting = client(Duration.ofSeconds(30)).leaderLatch("busy", r);
    waiting.close();
    held.close();
    assertThat(waiting.isLeader()).isFalse();
    assertThat(r.isEmpty()).isTrue();
    assertThat(holder.lock("busy").tryAcquire()).hasValueSatisfying(Lease::close);
  }

  @Test
  void badArgumentsAreRefusedByName() {
    LockClient c = client(Duration.ofSeconds(30));
    assertThatThrownBy(() -> c.leaderLatch("x", null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("listener");
    assertThatThrownBy(() -> c.leaderLatch("", new LeaderEvents()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
