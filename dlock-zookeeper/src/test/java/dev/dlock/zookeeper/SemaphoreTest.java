package dev.dlock.zookeeper;

import static dev.dlock.spi.LockKind.PERMIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.zookeeper.SpiClients.Spi;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The semaphore's permits as ephemeral nodes, through the SPI: a holder whose session is killed
 * gives its permit back to the waiter, and is told; a release wakes the first waiter, which takes
 * the permit, and at most the one behind it (to watch the holders in its place), never the rest.
 */
class SemaphoreTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private TestingServer server;
  private SpiClients clients;

  @BeforeEach
  void start() throws Exception {
    server = ZkServers.server();
    clients = new SpiClients(ZkServers.url(server.getConnectString(), "sessionTimeout=10s"));
  }

  @AfterEach
  void stop() throws Exception {
    clients.close();
    server.close();
  }

  private static Attempt granted(Spi s, String name, int permits) {
    Attempt a = s.request(name, PERMIT, permits);
    assertThat(a.isGranted()).as("a permit for %s", s.owner()).isTrue();
    return a;
  }

  private static void held(Spi s, String name, int permits) {
    assertThat(s.request(name, PERMIT, permits).isGranted()).as("a permit for %s", s.owner()).isFalse();
  }

  @Test
  void aHolderWhoseSessionIsKilledGivesItsPermitBack() throws Exception {
    String name = "sem-crash";
    Spi holder = clients.open("holder");
    Attempt held = granted(holder, name, 1);
    Spi waiter = clients.open("waiter");
    held(waiter, name, 1);

    ZkServers.killSession(server.getConnectString(), holder.backend());

    assertThat(waiter.context().nextWakeUp(PATIENCE)).isEqualTo(name);
    assertThat(granted(waiter, name, 1).token()).isGreaterThan(held.token());
    Grant lost = holder.context().nextLoss(PATIENCE);
    assertThat(lost).as("the holder is told").isEqualTo(new Grant(name, holder.owner(), held.token(), PERMIT));
  }

  @Test
  void aReleaseWakesTheFirstWaiterAndAtMostTheNextNeverTheRest() throws Exception {
    String name = "sem-herd";
    int permits = 2;
    Spi older = clients.open("older");
    Attempt olderHeld = granted(older, name, permits);
    Spi younger = clients.open("younger");
    Attempt youngerHeld = granted(younger, name, permits);
    List<Spi> waiters = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Spi w = clients.open("waiter" + i);
      held(w, name, permits);
      waiters.add(w);
    }
    String dir = older.backend().nodes().dir(PERMIT, name);

    // The younger holder first: a waiter watching only the node n places ahead would miss it.
    younger.release(name, PERMIT, youngerHeld);
    assertThat(waiters.get(0).context().nextWakeUp(PATIENCE)).isEqualTo(name);
    granted(waiters.get(0), name, permits);
    assertThat(waiters.get(1).context().nextWakeUp(PATIENCE)).as("the next waiter, to watch the holders")
        .isEqualTo(name);
    held(waiters.get(1), name, permits);
    for (Spi w : waiters.subList(2, 4)) {
      w.sync(dir);
      assertThat(w.context().pendingWakeUps()).as("wake-ups of %s", w.owner()).isEmpty();
    }

    older.release(name, PERMIT, olderHeld);
    assertThat(waiters.get(1).context().nextWakeUp(PATIENCE)).isEqualTo(name);
    granted(waiters.get(1), name, permits);
    assertThat(waiters.get(2).context().nextWakeUp(PATIENCE)).isEqualTo(name);
    held(waiters.get(2), name, permits);
    waiters.get(3).sync(dir);
    assertThat(waiters.get(3).context().pendingWakeUps()).as("wake-ups of the last waiter").isEmpty();
    for (Spi w : waiters) {
      assertThat(w.context().pendingWakeUps()).as("further wake-ups of %s", w.owner()).isEmpty();
    }
  }
}
