package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LeaderLatch;
import dev.dlock.LeaderListener;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.zookeeper.TestClients.Client;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The core's leader latch on this backend: when the leader's session is killed, its node goes,
 * the next client's predecessor watch fires and it is elected, and the old leader is told.
 */
class LeaderLatchTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private TestingServer server;
  private final TestClients clients = new TestClients();

  @BeforeEach
  void start() throws Exception {
    server = ZkServers.server();
  }

  @AfterEach
  void stop() throws Exception {
    clients.close();
    server.close();
  }

  /** Completes its futures on the latch's events. */
  private static final class Events implements LeaderListener {
    final CompletableFuture<Lease> elected = new CompletableFuture<>();
    final CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();

    @Override
    public void elected(Lease lease) {
      elected.complete(lease);
    }

    @Override
    public void lost(Lease lease, LeaseLostException reason) {
      lost.complete(reason);
    }
  }

  @Test
  void leadershipMovesToTheNextClientWhenTheLeadersSessionIsKilled() throws Exception {
    String url = ZkServers.url(server.getConnectString(), "sessionTimeout=5s");
    Client first = clients.open(url);
    Client second = clients.open(url);
    Events firstEvents = new Events();
    Events secondEvents = new Events();
    LeaderLatch leader = first.client().leaderLatch("leader", firstEvents);
    // The second stands only once the first leads: two latches started together race.
    assertThat(leader.awaitLeadership(PATIENCE)).isTrue();
    Lease firstLease = firstEvents.elected.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    try (leader; LeaderLatch next = second.client().leaderLatch("leader", secondEvents)) {
      second.counts().awaitWaited(PATIENCE);
      assertThat(next.isLeader()).isFalse();

      ZkServers.killSession(server.getConnectString(), first.backend());

      Lease secondLease = secondEvents.elected.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      assertThat(next.isLeader()).isTrue();
      assertThat(secondLease.token()).isGreaterThan(firstLease.token());
      assertThat(firstEvents.lost.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).hasMessageContaining("session");
      assertThat(second.counts().woken.get()).as("woken by the deletion, not a poll").isEqualTo(1);
    }
  }
}
