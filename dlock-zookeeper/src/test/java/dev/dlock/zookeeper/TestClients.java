package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import dev.dlock.LockListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients for the tests below, each on its own session and closed by {@link #close()}; each
 * with its backend at hand (to kill its session or read its counters) and a listener counting
 * waits and wake-ups. Waiters never poll, so only a release notification can move them.
 */
final class TestClients implements AutoCloseable {
  static final Duration NO_POLL = Duration.ofHours(1);

  /** One client: the engine, its backend and what its listener saw. */
  record Client(LockClient client, ZooKeeperBackend backend, Counts counts) {}

  /** Counts of one client's events. */
  static final class Counts implements LockListener {
    final AtomicInteger woken = new AtomicInteger();
    final CountDownLatch waited = new CountDownLatch(1);

    @Override
    public void waited(String name) {
      waited.countDown();
    }

    @Override
    public void woken(String name) {
      woken.incrementAndGet();
    }

    void awaitWaited(Duration patience) throws InterruptedException {
      assertThat(waited.await(patience.toMillis(), TimeUnit.MILLISECONDS)).as("the client began to wait").isTrue();
    }
  }

  private final List<Client> clients = new CopyOnWriteArrayList<>();

  Client open(String url) {
    ZooKeeperBackend backend = ZooKeeperBackendProvider.open(url, null);
    Counts counts = new Counts();
    LockClient client = LockClient.builder().backend(backend).maxPollInterval(NO_POLL).listener(counts).build();
    Client c = new Client(client, backend, counts);
    clients.add(c);
    return c;
  }

  @Override
  public void close() {
    for (Client c : clients) {
      c.client().close();
    }
    clients.clear();
  }
}
