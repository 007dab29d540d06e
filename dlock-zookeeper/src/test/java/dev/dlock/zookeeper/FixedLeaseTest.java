package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A fixed lease ({@code lock(name, leaseTime)}) on ZooKeeper ends at its deadline at the server
 * too: the engine then sends an owner-checked release, which deletes the node, and the next
 * client is granted. The backend's part is the release of a grant whose hold has already been
 * declared lost, by the engine or by the backend itself: it deletes the node if it is still this
 * owner's, and nothing else.
 */
class FixedLeaseTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  @RegisterExtension
  static final ZkServer server = new ZkServer();

  private static String url() {
    return server.url("sessionTimeout=10s");
  }

  @Test
  void theReleaseOfAGrantDeclaredLostFreesTheLockForTheNextClient() throws Exception {
    try (SpiClients spi = new SpiClients(url())) {
      SpiClients.Spi holder = spi.open("holder");
      SpiClients.Spi waiter = spi.open("waiter");
      Attempt held = holder.request("fixed", LockKind.EXCLUSIVE, 1, false, null);
      assertThat(waiter.request("fixed", LockKind.EXCLUSIVE, 1).isGranted()).isFalse();
      // The backend itself declared the grant lost (as when a suspension outlasted its estimate
      // and the session survived after all): the node still stands, and only this release can
      // delete it while the client lives.
      assertThat(holder.backend().queueNodes().contender(holder.owner()).claimLoss()).isTrue();

      assertThat(holder.release("fixed", LockKind.EXCLUSIVE, held)).as("the release at the deadline").isTrue();

      assertThat(waiter.context().nextWakeUp(PATIENCE)).isEqualTo("fixed");
      Attempt next = waiter.request("fixed", LockKind.EXCLUSIVE, 1);
      assertThat(next.isGranted()).isTrue();
      assertThat(next.token()).isGreaterThan(held.token());
      assertThat(holder.release("fixed", LockKind.EXCLUSIVE, held)).as("a second release").isFalse();
      assertThat(holder.backend().inspect("fixed")).get().extracting(i -> i.owner()).isEqualTo(waiter.owner());
    }
  }

  @Test
  void theReleaseOfAGrantWhoseNodeWasDeletedTouchesNothingElse() throws Exception {
    try (SpiClients spi = new SpiClients(url())) {
      SpiClients.Spi holder = spi.open("holder");
      SpiClients.Spi other = spi.open("other");
      Attempt held = holder.request("gone", LockKind.EXCLUSIVE, 1, false, null);
      Grant grant = new Grant("gone", holder.owner(), held.token());
      String node = holder.backend().queueNodes().contender(holder.owner()).node;
      other.backend().session().zk().delete(node, -1);
      assertThat(holder.context().nextLoss(PATIENCE)).isEqualTo(grant);
      Attempt theirs = other.request("gone", LockKind.EXCLUSIVE, 1, false, null);
      assertThat(theirs.isGranted()).isTrue();

      assertThat(holder.backend().release(grant)).as("the release of the deleted node").isFalse();
      assertThat(holder.backend().inspect("gone")).get().extracting(i -> i.token()).isEqualTo(theirs.token());
    }
  }

  @Test
  void aFixedLeaseThatIsNeverClosedFreesTheLockAtItsDeadline() throws Exception {
    Duration lease = Duration.ofSeconds(1);
    try (LockClient holder = LockClient.builder().url(url()).build();
        LockClient waiter = LockClient.builder().url(url()).build()) {
      // The lease counts from the grant's request, not from its answer, which a loaded machine delays.
      long askedAt = System.nanoTime();
      Lease held = holder.lock("fixed-lease", lease).acquire(PATIENCE);
      long grantedAt = System.nanoTime();
      CompletableFuture<LeaseLostException> lost = held.lost().toCompletableFuture();
      CompletableFuture<Long> toldAt = lost.thenApply(e -> System.nanoTime());

      try (Lease next = waiter.lock("fixed-lease").acquire(PATIENCE)) {
        long grantedNextAt = System.nanoTime();
        assertThat(Duration.ofNanos(grantedNextAt - askedAt)).as("time from the request until the next client got it")
            .isGreaterThanOrEqualTo(lease.minusMillis(100));
        assertThat(Duration.ofNanos(grantedNextAt - grantedAt)).as("time until the next client got the lock")
            .isLessThan(lease.plusMillis(1500));
        assertThat(toldAt).as("the holder's loss signal").isDone();
        assertThat(toldAt.join() - grantedNextAt).as("the holder was told first").isNegative();
        assertThat(held.isValid()).isFalse();
        assertThat(next.token()).isGreaterThan(held.token());
      }
    }
  }
}
