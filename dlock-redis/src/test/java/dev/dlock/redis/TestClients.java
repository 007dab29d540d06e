package dev.dlock.redis;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The clients and threads one test opens, closed after it: register it as an instance field with
 * {@code @RegisterExtension}, so every test class shares this bookkeeping instead of repeating it.
 */
final class TestClients implements AfterEachCallback {
  private final List<LockClient> clients = new CopyOnWriteArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  /** Closes {@code client} after the test; returns it. */
  LockClient add(LockClient client) {
    clients.add(client);
    return client;
  }

  /** Threads for the test's blocking steps, stopped after it. */
  ExecutorService threads() {
    return threads;
  }

  /** Acquires {@code lock} on a test thread, waiting up to {@code wait}; the grant's token, released. */
  Future<Long> tokenOf(DistributedLock lock, Duration wait) {
    return threads.submit(() -> {
      try (Lease lease = lock.acquire(wait)) {
        return lease.token();
      }
    });
  }

  @Override
  public void afterEach(ExtensionContext context) {
    clients.forEach(LockClient::close);
    threads.shutdownNow();
  }
}
