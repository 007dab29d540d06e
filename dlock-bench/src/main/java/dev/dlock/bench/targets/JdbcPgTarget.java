package dev.dlock.bench.targets;

import dev.dlock.LockClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * dlock's JDBC backend on the run's PostgreSQL ({@link PgServer}): each client is its own
 * {@link LockClient} connected by URL, as an application would, so it has dlock's default pool of
 * {@value PgServer#POOL_SIZE} connections plus its one {@code LISTEN} connection, and waiters are
 * woken by {@code NOTIFY}.
 */
public final class JdbcPgTarget implements Target {
  static final String NAME = "jdbc-pg";

  private final List<LockClient> clients = new ArrayList<>();
  private final Waits waits = new Waits();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> forkJvmArgs() {
    return PgServer.forkJvmArgs();
  }

  @Override
  public void setUp(int count) {
    String url = PgServer.url();
    for (int i = 0; i < count; i++) {
      // The builder with a URL is LockClient.connect(url), plus the listener W4 needs.
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
