package dev.dlock.zookeeper;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import dev.dlock.testkit.RecordingContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Backends driven through the SPI alone, each on its own session with a {@link RecordingContext},
 * for tests that count exactly which clients a release wakes. Why without an engine: the engine
 * would retry on its own; here the test decides when each waiter looks again.
 */
final class SpiClients implements AutoCloseable {
  static final Duration LEASE = Duration.ofSeconds(30);

  /** One backend, what it was told, and the one owner it competes as. */
  record Spi(ZooKeeperBackend backend, RecordingContext context, String owner) {
    Attempt request(String name, LockKind kind, int permits, boolean willWait, String writer) {
      return backend.tryAcquire(new LockRequest(name, kind, permits, owner, LEASE, willWait, writer));
    }

    Attempt request(String name, LockKind kind, int permits) {
      return request(name, kind, permits, true, null);
    }

    boolean release(String name, LockKind kind, Attempt granted) {
      return backend.release(new Grant(name, owner, granted.token(), kind));
    }

    /**
     * A round trip on this backend's session. ZooKeeper delivers a watch event to a session before
     * the answer to any later read that sees the change, so after this every wake-up caused by a
     * change made before it has been recorded.
     */
    void sync(String dir) {
      backend.queueNodes().children(dir, () -> "sync");
    }
  }

  private final List<ZooKeeperBackend> backends = new CopyOnWriteArrayList<>();
  private final String url;

  SpiClients(String url) {
    this.url = url;
  }

  Spi open(String clientId) {
    ZooKeeperBackend b = ZooKeeperBackendProvider.open(url, null);
    backends.add(b);
    RecordingContext context = new RecordingContext(clientId);
    b.start(context);
    return new Spi(b, context, clientId + ":1");
  }

  @Override
  public void close() {
    for (ZooKeeperBackend b : backends) {
      b.close();
    }
  }
}
