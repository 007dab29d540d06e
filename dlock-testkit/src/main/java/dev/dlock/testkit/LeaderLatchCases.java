package dev.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LeaderLatch;
import dev.dlock.LeaderListener;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The leader latch ({@link LockClient#leaderLatch}) on a real backend: of several clients that
 * stand, one leads; when the leader closes its latch, one of the others is elected with a higher
 * token; and when the leader is cut off from the server, as when its process or its network dies,
 * it is told it lost, and another client is elected once the server lets its grant go. Every
 * client reaches the server through a {@link FaultProxy} of its own, so cutting one off (the proxy
 * closes its connections and refuses new ones) leaves the others alone.
 *
 * <p>A backend's test class extends this class and says where its server is and how to reach it
 * through a proxy's port. Clients have a lease of {@link #LEASE}, so a cut-off leader's grant runs
 * out within seconds on a backend that keeps it until its lease ends.
 */
public abstract class LeaderLatchCases {
  /** The lease of every client, short so that a cut-off leader's grant runs out soon. */
  protected static final Duration LEASE = Duration.ofSeconds(2);

  private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();

  /** For subclasses. */
  protected LeaderLatchCases() {}

  /**
   * @return the server's address on loopback, which each client's proxy forwards to
   */
  protected abstract InetSocketAddress server();

  /**
   * @param port  the loopback port of a proxy to the server
   * @param lease the client's lease time
   * @return a builder of a client that reaches the server through that port only
   */
  protected abstract LockClientBuilder throughProxy(int port, Duration lease);

  /**
   * How long one step (an election, a loss) may take at most on a loaded machine.
   *
   * @return 20 s by default
   */
  protected Duration patience() {
    return Duration.ofSeconds(20);
  }

  @AfterEach
  final void closeCandidates() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    opened.clear();
  }

  @Test
  void oneOfSeveralLeadsAndAnotherIsElectedWhenTheLeaderCloses() throws Exception {
    List<Candidate> all = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      all.add(stand("closed-leader"));
    }
    Candidate leader = electedAmong(all);
    long token = leader.events.elected.join().token();
    assertThat(all).filteredOn(c -> c.latch.isLeader()).containsExactly(leader);

    leader.latch.close();
    assertThat(leader.events.resigned.get(patience().toSeconds(), TimeUnit.SECONDS).token()).isEqualTo(token);
    assertThat(leader.latch.isLeader()).isFalse();
    all.remove(leader);
    Candidate next = electedAmong(all);
    assertThat(next.events.elected.join().token()).isGreaterThan(token);
    assertThat(all).filteredOn(c -> c.latch.isLeader()).containsExactly(next);
    assertThat(leader.events.lost).isNotDone();
  }

  @Test
  void aLeaderCutOffFromTheServerIsToldItLostAndAnotherIsElected() throws Exception {
    Candidate first = stand("cut-off-leader");
    assertThat(first.latch.awaitLeadership(patience())).isTrue();
    long token = first.events.elected.join().token();
    // The second stands only once the first leads: two latches started together race.
    Candidate second = stand("cut-off-leader");
    assertThat(second.latch.awaitLeadership(Duration.ZERO)).isFalse();

    first.proxy.close();

    LeaseLostException reason = first.events.lost.get(patience().toSeconds(), TimeUnit.SECONDS);
    assertThat(reason).hasMessageContaining("cut-off-leader");
    assertThat(first.latch.isLeader()).isFalse();
    assertThat(second.events.elected.get(patience().toSeconds(), TimeUnit.SECONDS).token())
        .isGreaterThan(token);
    assertThat(second.latch.isLeader()).isTrue();
  }

  /** A client standing for election on {@code name} through a proxy of its own. */
  private Candidate stand(String name) throws IOException {
    FaultProxy proxy = FaultProxy.start(server());
    opened.add(proxy);
    LockClient client = throughProxy(proxy.port(), LEASE).build();
    opened.add(client);
    Events events = new Events();
    LeaderLatch latch = client.leaderLatch(name, events);
    opened.add(latch);
    return new Candidate(proxy, latch, events);
  }

  /** The one of {@code candidates} elected first, waiting up to {@link #patience()}. */
  private Candidate electedAmong(List<Candidate> candidates)
      throws InterruptedException, ExecutionException, TimeoutException {
    CompletableFuture<?>[] elected = candidates.stream().map(c -> c.events.elected)
        .toArray(CompletableFuture<?>[]::new);
    CompletableFuture.anyOf(elected).get(patience().toSeconds(), TimeUnit.SECONDS);
    return candidates.stream().filter(c -> c.events.elected.isDone()).findFirst().orElseThrow();
  }

  private record Candidate(FaultProxy proxy, LeaderLatch latch, Events events) {}

  /** Completes a future on each kind of leader event (the first of each). */
  private static final class Events implements LeaderListener {
    final CompletableFuture<Lease> elected = new CompletableFuture<>();
    final CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
    final CompletableFuture<Lease> resigned = new CompletableFuture<>();

    @Override
    public void elected(Lease lease) {
      elected.complete(lease);
    }

    @Override
    public void lost(Lease lease, LeaseLostException reason) {
      lost.complete(reason);
    }

    @Override
    public void resigned(Lease lease) {
      resigned.complete(lease);
    }
  }
}
