package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LeaderLatch;
import dev.dlock.LeaderListener;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The core's leader latch on PostgreSQL lease locks: one leader among several clients, the lead
 * passed on when the leader closes its latch, and the leader told when its lease is lost (its row
 * deleted, as a database restored from an older backup would). Run by {@link PostgresConformanceTest}
 * on its server.
 */
abstract class PostgresLeaderLatchCases {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  private static final AtomicInteger SEQ = new AtomicInteger();

  private final List<AutoCloseable> open = new ArrayList<>();

  /** The server's URL. */
  abstract String url();

  /** Runs SQL on the server. */
  abstract Connection connect() throws Exception;

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  /** Completes its futures on a latch's events. */
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

  /** A client, and a latch counted down when one of its acquires queues. */
  private record Member(LockClient client, CountDownLatch waited, Events events) {}

  private Member member(Duration lease) {
    CountDownLatch waited = new CountDownLatch(1);
    LockClient client = LockClient.builder().url(url()).leaseTime(lease).listener(new LockListener() {
      @Override
      public void waited(String name) {
        waited.countDown();
      }
    }).build();
    open.add(client);
    return new Member(client, waited, new Events());
  }

  private LeaderLatch stand(Member m, String name) {
    LeaderLatch latch = m.client().leaderLatch(name, m.events());
    open.add(latch);
    return latch;
  }

  private static <T> T within(CompletableFuture<T> f) throws Exception {
    return f.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
  }

  private static void await(CountDownLatch latch, Supplier<String> what) throws InterruptedException {
    assertThat(latch.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as(what.get()).isTrue();
  }

  private static String name() {
    return "leader-" + SEQ.incrementAndGet() + "-" + System.nanoTime();
  }

  @Test
  void oneClientLeadsAndTheOthersWait() throws Exception {
    String name = name();
    Member first = member(Duration.ofSeconds(30));
    LeaderLatch leader = stand(first, name);
    assertThat(leader.awaitLeadership(PATIENCE)).isTrue();
    List<Member> others = List.of(member(Duration.ofSeconds(30)), member(Duration.ofSeconds(30)));
    List<LeaderLatch> latches = new ArrayList<>();
    for (Member m : others) {
      latches.add(stand(m, name));
      await(m.waited(), () -> "a second client stands and queues");
    }
    assertThat(leader.isLeader()).isTrue();
    assertThat(latches).noneMatch(LeaderLatch::isLeader);
    assertThat(others).noneMatch(m -> m.events().elected.isDone());
  }

  @Test
  void theLeadPassesOnWhenTheLeaderCloses() throws Exception {
    String name = name();
    Member first = member(Duration.ofSeconds(30));
    LeaderLatch leader = stand(first, name);
    Lease firstLease = within(first.events().elected);
    Member second = member(Duration.ofSeconds(30));
    LeaderLatch next = stand(second, name);
    await(second.waited(), () -> "the second client queues behind the leader");

    leader.close();

    Lease secondLease = within(second.events().elected);
    assertThat(next.isLeader()).isTrue();
    assertThat(secondLease.token()).isGreaterThan(firstLease.token());
    assertThat(first.events().lost).as("a leader that closes has lost nothing").isNotDone();
  }

  @Test
  void aLeaderWhoseRowIsDeletedIsToldAndTheNextLeads() throws Exception {
    String name = name();
    Member first = member(Duration.ofSeconds(3)); // renewed every second, so the loss is seen soon
    LeaderLatch leader = stand(first, name);
    Lease firstLease = within(first.events().elected);
    Member second = member(Duration.ofSeconds(30));
    LeaderLatch next = stand(second, name);
    await(second.waited(), () -> "the second client queues behind the leader");

    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement("DELETE FROM dlock_locks WHERE name = ?")) {
      ps.setString(1, name);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }

    assertThat(within(first.events().lost)).hasMessageContaining(name).hasMessageContaining("no longer held");
    // The told leader stands again and may win once more; closing its latch settles the race.
    leader.close();
    Lease secondLease = within(second.events().elected);
    assertThat(next.isLeader()).isTrue();
    assertThat(secondLease.token()).isGreaterThan(firstLease.token());
  }
}
