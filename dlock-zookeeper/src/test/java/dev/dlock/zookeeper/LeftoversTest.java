package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.LockKind;
import dev.dlock.zookeeper.SpiClients.Spi;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * For every kind besides the exclusive one: a one-shot try on a held lock leaves no node behind,
 * a cancelled waiter's node is deleted, and a release deletes the holder's, so the container
 * directory is left empty for the server to reap.
 */
class LeftoversTest {
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

  @Test
  void oneShotTriesCancelsAndReleasesOfEveryKindLeaveNothingBehind() {
    Spi holder = clients.open("holder");
    Spi other = clients.open("other");
    for (LockKind kind : new LockKind[] {LockKind.FAIR, LockKind.READ, LockKind.WRITE, LockKind.PERMIT}) {
      String name = "leftovers-" + kind;
      // A reader is refused only by a writer.
      LockKind held = kind == LockKind.READ ? LockKind.WRITE : kind;
      Attempt granted = holder.request(name, held, 1);
      assertThat(granted.isGranted()).as("%s for the holder", held).isTrue();
      String dir = holder.backend().nodes().dir(kind, name);

      assertThat(other.request(name, kind, 1, false, null).isGranted()).as("a one-shot %s try", kind).isFalse();
      assertThat(holder.backend().queueNodes().children(dir, () -> "count")).as("nodes after a one-shot %s try", kind).hasSize(1);

      Spi waiter = new Spi(other.backend(), other.context(), "other:2");
      assertThat(waiter.request(name, kind, 1).isGranted()).as("a waiting %s try", kind).isFalse();
      assertThat(holder.backend().queueNodes().children(dir, () -> "count")).as("nodes while a %s waiter queues", kind).hasSize(2);
      other.backend().cancel(name, waiter.owner());
      assertThat(holder.backend().queueNodes().children(dir, () -> "count")).as("nodes after the %s waiter gave up", kind).hasSize(1);

      assertThat(holder.release(name, held, granted)).isTrue();
      assertThat(holder.backend().queueNodes().children(dir, () -> "count")).as("nodes after the %s release", kind).isEmpty();
    }
  }
}
