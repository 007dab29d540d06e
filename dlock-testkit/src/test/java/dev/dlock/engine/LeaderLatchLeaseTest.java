package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LeaderLatch;
import dev.dlock.LockClient;
import dev.dlock.internal.Abandonable;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.LockBackend;
import dev.dlock.testkit.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A leader whose lease runs out or is lost, on {@link VirtualTime}: leases expire at the server and
 * are renewed only when the test advances the clock. The election threads are real, so the test
 * waits for their callbacks; a waiting latch polls the server every few milliseconds of real time.
 */
class LeaderLatchLeaseTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);
  private static final Duration LEASE = Duration.ofMillis(300);
  private final VirtualTime time = new VirtualTime();
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private LockClient client(LockBackend backend) {
    LockClient c = LockClient.builder().backend(backend).leaseTime(LEASE).ticker(time.ticker())
        .scheduler(time.scheduler()).maxPollInterval(Duration.ofMillis(5)).build();
    toClose.add(c);
    return c;
  }

  @Test
  void aCrashedLeaderIsReplacedAfterItsLease() throws Exception {
    MemServer server = MemServer.create(time.ticker());
    LockClient doomed = client(server.newBackend());
    LeaderEvents r1 = new LeaderEvents();
    LeaderLatch first = doomed.leaderLatch("crash", r1);
    String elected = r1.next();
    assertThat(elected).startsWith("elected ");
    long token = Long.parseLong(elected.substring("elected ".length()));
    LeaderEvents r2 = new LeaderEvents();
    LockClient other = client(server.newBackend());
    LeaderLatch second = other.leaderLatch("crash", r2);
    toClose.add(second);

    ((Abandonable) doomed).abandon();
    time.advance(LEASE.minusMillis(1));
    assertThat(other.inspect("crash")).as("the crashed leader's lease at the server")
        .hasValueSatisfying(info -> assertThat(info.token()).isEqualTo(token));
    assertThat(second.isLeader()).isFalse();
    time.advance(Duration.ofMillis(1));
    String next = r2.next();
    assertThat(next).startsWith("elected ");
    assertThat(Long.parseLong(next.substring("elected ".length()))).isGreaterThan(token);
    assertThat(second.isLeader()).isTrue();
    assertThat(first.isLeader()).isFalse();
  }

  @Test
  void aLostLeaseIsReportedAndTheLatchStandsAgain() throws Exception {
    VirtualTime serverTime = new VirtualTime(); // a clock of the server's own, to expire it alone
    MemServer slow = MemServer.create(serverTime.ticker());
    LockClient c = client(slow.newBackend());
    LeaderEvents r = new LeaderEvents();
    LeaderLatch latch = c.leaderLatch("lost", r);
    toClose.add(latch);
    String elected = r.next();
    String first = elected.substring("elected ".length());

    serverTime.advance(Duration.ofSeconds(1)); // the server lets the lease run out
    time.advance(LEASE.dividedBy(3)); // the client's round finds it gone
    assertThat(r.next()).isEqualTo("lost " + first);
    String again = r.next();
    assertThat(again).startsWith("elected ");
    assertThat(Long.parseLong(again.substring(8))).isGreaterThan(Long.parseLong(first));
  }
}
