package dev.dlock.bench.targets;

import dev.dlock.LockClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

/**
 * dlock on its in-memory backend: each client is its own {@link LockClient} of one {@code mem:}
 * server, so clients contend through the server like separate processes, with the engine's local
 * queue, release notifications and watchdog all in play. Each set-up gets a server of its own,
 * so runs in one JVM never share lock state.
 */
public final class MemTarget implements Target {
  static final String NAME = "mem";
  private static final AtomicInteger SERVERS = new AtomicInteger();

  private final List<LockClient> clients = new ArrayList<>();
  private final Waits waits = new Waits();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void setUp(int count) {
    String url = "mem:bench-" + ProcessHandle.current().pid() + "-" + SERVERS.incrementAndGet();
    for (int i = 0; i < count; i++) {
      clients.add(LockClient.builder().url(url).clientName("bench-" + i).listener(waits).build());
    }
  }

  @Override
  public Lock lock(int client, String key) {
    return clients.get(client).lock(key);
  }

  @Override
  public void awaitWaiter(String key) throws InterruptedException {
    waits.await(key);
  }

  @Override
  public void tearDown() {
    clients.forEach(LockClient::close);
    clients.clear();
    waits.clear();
  }
}
