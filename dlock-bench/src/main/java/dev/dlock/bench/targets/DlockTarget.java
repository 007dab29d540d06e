package dev.dlock.bench.targets;

import dev.dlock.LockClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * dlock on any backend, reached by URL as an application would: each client is its own
 * {@link LockClient}, so clients contend through the server like separate processes, with the
 * engine's local queue, release notifications and watchdog all in play. A backend joins the bench
 * as one more instance with its URL.
 */
public final class DlockTarget implements Target {
  static final String MEM = "mem";
  static final String JDBC_PG = "jdbc-pg";
  static final String REDIS = "dlock-redis";
  static final String ZOOKEEPER = "dlock-zookeeper";
  static final String SENTINEL = "dlock-sentinel";
  static final String SENTINEL_WAIT = "dlock-sentinel-wait";
  static final String REDLOCK = "dlock-redlock";
  private static final AtomicInteger MEM_SERVERS = new AtomicInteger();

  private final String name;
  private final Supplier<String> url;
  private final Supplier<List<String>> forkJvmArgs;
  private final List<LockClient> clients = new ArrayList<>();
  private final Waits waits = new Waits();

  private DlockTarget(String name, Supplier<String> url, Supplier<List<String>> forkJvmArgs) {
    this.name = name;
    this.url = url;
    this.forkJvmArgs = forkJvmArgs;
  }

  /** The in-memory backend, on a server of its own per set-up so runs never share lock state. */
  static DlockTarget mem() {
    return new DlockTarget(MEM,
        () -> "mem:bench-" + ProcessHandle.current().pid() + "-" + MEM_SERVERS.incrementAndGet(), List::of);
  }

  /**
   * The JDBC backend on the run's PostgreSQL ({@link PgServer}): dlock's default pool of
   * {@value PgServer#POOL_SIZE} connections per client plus one {@code LISTEN} connection, and
   * waiters woken by {@code NOTIFY}.
   */
  static DlockTarget jdbcPg() {
    return new DlockTarget(JDBC_PG, PgServer::url, PgServer::forkJvmArgs);
  }

  /**
   * The Redis backend on the run's redis-server ({@link RedisBenchServer}): one command and one
   * pub/sub connection per client, and one waiting client woken per release.
   */
  static DlockTarget redis() {
    return new DlockTarget(REDIS, RedisBenchServer::url, RedisBenchServer::forkJvmArgs);
  }

  /** The ZooKeeper backend on the run's server ({@link ZkServer}): one session per client. */
  static DlockTarget zookeeper() {
    return new DlockTarget(ZOOKEEPER, ZkServer::url, ZkServer::forkJvmArgs);
  }

  /**
   * The Redis backend through the run's Sentinels ({@link HaBenchServers}), without WAIT, or with
   * {@code WAIT 1} (up to 1 s) after every grant and renewal; each with a key prefix of its own.
   */
  static DlockTarget sentinel(boolean wait) {
    String name = wait ? SENTINEL_WAIT : SENTINEL;
    String query = "prefix=" + name + ":" + (wait ? "&waitReplicas=1&waitTimeout=1s" : "");
    return new DlockTarget(name, () -> HaBenchServers.sentinelUrl(query), HaBenchServers::sentinelForkJvmArgs);
  }

  /** The Redis backend's Redlock over the run's five masters ({@link HaBenchServers}), defaults. */
  static DlockTarget redlock() {
    return new DlockTarget(REDLOCK, () -> HaBenchServers.redlockUrl("prefix=" + REDLOCK + ":"),
        HaBenchServers::redlockForkJvmArgs);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<String> forkJvmArgs() {
    return forkJvmArgs.get();
  }

  @Override
  public void setUp(int count) {
    String u = url.get();
    for (int i = 0; i < count; i++) {
      // LockClient.connect(url), plus the listener W4 needs to see a waiter queue up.
      clients.add(LockClient.builder().url(u).clientName("bench-" + i).listener(waits).build());
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
