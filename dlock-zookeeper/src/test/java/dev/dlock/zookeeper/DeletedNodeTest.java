package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.spi.LockKind;
import dev.dlock.zookeeper.TestClients.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A holder whose node someone else deletes (an administrator, a cleanup script, a client with the
 * same credentials) is told at once, well before any renewal, and is no longer valid, while the
 * waiter behind it is granted with a higher token: never two valid holders. The node is deleted
 * by a raw ZooKeeper client. Each kind whose nodes live elsewhere is covered: exclusive, the write
 * side of a read-write lock, and a semaphore's permit. The session timeout is long (so renewals
 * come every 10 s, from the client's 30 s lease) and the loss must come within 2 s.
 */
class DeletedNodeTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  private static final Duration PROMPTLY = Duration.ofSeconds(2);
  @RegisterExtension
  static final ZkServer server = new ZkServer();
  private final TestClients clients = new TestClients();
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private ZooKeeper raw;

  @AfterEach
  void close() throws Exception {
    threads.shutdownNow();
    clients.close();
    if (raw != null) {
      raw.close();
    }
  }

  /** A lock or a semaphore, as far as this test needs one. */
  private interface Acquirer {
    Lease acquire(Duration maxWait) throws InterruptedException;
  }

  private String url() {
    return server.url("sessionTimeout=30s");
  }

  @Test
  void exclusive() throws Exception {
    Client holder = clients.open(url());
    Client waiter = clients.open(url());
    check(holder, holder.client().lock("deleted")::acquire, waiter, waiter.client().lock("deleted")::acquire,
        holder.backend().nodes().dir(LockKind.EXCLUSIVE, "deleted"));
  }

  @Test
  void writeSideOfAReadWriteLock() throws Exception {
    Client holder = clients.open(url());
    Client waiter = clients.open(url());
    check(holder, holder.client().readWriteLock("deleted").writeLock()::acquire,
        waiter, waiter.client().readWriteLock("deleted").readLock()::acquire,
        holder.backend().nodes().dir(LockKind.WRITE, "deleted"));
  }

  @Test
  void semaphorePermit() throws Exception {
    Client holder = clients.open(url());
    Client waiter = clients.open(url());
    check(holder, holder.client().semaphore("deleted", 1)::acquire,
        waiter, waiter.client().semaphore("deleted", 1)::acquire,
        holder.backend().nodes().dir(LockKind.PERMIT, "deleted"));
  }

  private void check(Client holder, Acquirer holderLock, Client waiter, Acquirer waiterLock, String dir)
      throws Exception {
    Lease held = holderLock.acquire(PATIENCE);
    CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> {
      try {
        return waiterLock.acquire(PATIENCE);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }, threads);
    waiter.counts().awaitWaited(PATIENCE);
    List<String> nodes = raw().getChildren(dir, false);
    assertThat(nodes).as("the holder's node and the waiter's").hasSize(2);
    String holderNode = dir + "/" + nodes.stream().min((a, b) -> Nodes.seq(a).compareTo(Nodes.seq(b))).orElseThrow();
    assertThat(new String(raw.getData(holderNode, false, null), StandardCharsets.UTF_8))
        .as("the owner in the first node's data").startsWith(holder.client().id() + ":");

    long deletedAt = System.nanoTime();
    raw.delete(holderNode, -1);

    LeaseLostException reason = held.lost().toCompletableFuture().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - deletedAt)).as("time until the holder was told")
        .isLessThan(PROMPTLY);
    assertThat(reason).hasMessageContaining("deleted");
    assertThat(held.isValid()).isFalse();
    assertThatThrownBy(held::ensureValid).isInstanceOf(LeaseLostException.class);
    Lease taken = next.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(taken.token()).as("the waiter's token").isGreaterThan(held.token());
    assertThat(taken.isValid()).isTrue();
    assertThatThrownBy(held::close).as("closing the lost lease").isInstanceOf(LeaseLostException.class);
    assertThat(raw.getChildren(dir, false)).as("the waiter's node, untouched by the lost holder's close")
        .hasSize(1);
    taken.close();
  }

  private ZooKeeper raw() throws Exception {
    raw = server.rawClient();
    return raw;
  }
}
