package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.zookeeper.TestClients.Client;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A 3-node ensemble loses its leader while one client holds the lock and ten wait. The sessions
 * outlive the election, so every waiter keeps its place (its watch is set again on the server it
 * reconnects to) and gets the lock in turn; a flag set and cleared with compare-and-set inside
 * the critical section shows there were never two holders.
 */
class LeaderFailoverTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final int WAITERS = 10;

  private TestingCluster cluster;
  private final TestClients clients = new TestClients();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void start() throws Exception {
    cluster = ZkServers.cluster(3);
  }

  @AfterEach
  void stop() throws Exception {
    threads.shutdownNow();
    clients.close();
    cluster.close();
  }

  /** The leader among the servers other than {@code dead}, once the ensemble has elected one. */
  private InstanceSpec leader(InstanceSpec dead) throws Exception {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (System.nanoTime() < deadline) {
      for (InstanceSpec spec : cluster.getInstances()) {
        if (!spec.equals(dead) && answer(spec).contains("Mode: leader")) {
          return spec;
        }
      }
      Thread.onSpinWait();
    }
    throw new AssertionError("no leader in " + cluster.getConnectString());
  }

  /** A server's {@code srvr} answer, or "" while it does not answer (during an election). */
  private static String answer(InstanceSpec spec) throws Exception {
    try {
      return ZkServers.fourLetters(spec, "srvr");
    } catch (IOException e) {
      return "";
    }
  }

  @Test
  void killingTheLeaderWhileHeldNeverMakesTwoHoldersAndEveryWaiterFinishes() throws Exception {
    String url = ZkServers.url(cluster.getConnectString(), "sessionTimeout=15s&connectionTimeout=10s");
    String name = "failover";
    AtomicBoolean inside = new AtomicBoolean();
    AtomicInteger overlaps = new AtomicInteger();
    List<Long> tokens = new CopyOnWriteArrayList<>();

    Client holder = clients.open(url);
    Lease held = holder.client().lock(name).acquire(PATIENCE);
    assertThat(inside.compareAndSet(false, true)).isTrue();
    tokens.add(held.token());

    List<CompletableFuture<Long>> done = new ArrayList<>();
    for (int i = 0; i < WAITERS; i++) {
      Client c = clients.open(url);
      done.add(CompletableFuture.supplyAsync(() -> {
        try (Lease l = c.client().lock(name).acquire(PATIENCE)) {
          if (!inside.compareAndSet(false, true)) {
            overlaps.incrementAndGet();
          }
          tokens.add(l.token());
          Thread.yield();
          if (!inside.compareAndSet(true, false)) {
            overlaps.incrementAndGet();
          }
          return l.token();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }, threads));
      c.counts().awaitWaited(PATIENCE);
    }

    InstanceSpec leader = leader(null);
    assertThat(cluster.killServer(leader)).isTrue();
    assertThat(inside.compareAndSet(true, false)).isTrue();
    try {
      held.close();
    } catch (LeaseLostException e) {
      // Allowed: if the holder's server was the leader and the election outlasted the suspension
      // allowance, the holder was told its lease became uncertain. The release still deleted its node.
    }

    for (CompletableFuture<Long> f : done) {
      assertThat(f.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(held.token());
    }
    assertThat(overlaps.get()).as("moments with two holders").isZero();
    assertThat(tokens).hasSize(WAITERS + 1).isSorted().doesNotHaveDuplicates();
    assertThat(leader(leader)).as("the ensemble elected a new leader").isNotEqualTo(leader);
  }
}
