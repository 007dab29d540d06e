package dev.dlock.bench.targets;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * The one ZooKeeper server of a bench run, shared by the ZooKeeper targets so dlock and Curator
 * compete on the same server. The first target to need it starts a single curator-test
 * {@link TestingServer} (ZooKeeper 3.9, in this JVM, on a free loopback port, data in a temporary
 * directory deleted at exit); a JVM shutdown hook stops it. The server is Java, so it is warmed up
 * before any target runs ({@link #warmUp}): otherwise the first target in the table measures the
 * server's JIT compiler, and looks up to twice as slow as the same target run second.
 *
 * <p>JMH forks get its connect string through the {@value #CONNECT_PROPERTY} system property
 * ({@link #forkJvmArgs}), so they use the parent's server; setting that property by hand points the
 * bench at an existing ensemble instead.
 */
public final class ZkServer {
  /** The connect string ({@code host:port,...}) of the server to use; set once the embedded one is up. */
  public static final String CONNECT_PROPERTY = "dlock.bench.zk.connect";
  /** The session timeout of every client of both targets. */
  static final int SESSION_TIMEOUT_MS = 10_000;
  private static final int WARM_UP_SECONDS = 10;

  static final String LEGEND = "ZooKeeper targets: one standalone ZooKeeper 3.9 (curator-test"
      + " TestingServer, in the bench's JVM, tickTime 200 ms, forceSync=no, preAllocSize 4 MB, snapCount 2,000,000,"
      + " warmed up for " + WARM_UP_SECONDS
      + " s before the first target) on loopback for the whole run; each"
      + " client is its own session (timeout " + SESSION_TIMEOUT_MS / 1000 + " s).";

  private ZkServer() {}

  /** The server's connect string, starting the embedded server on first use. */
  public static synchronized String connectString() {
    String connect = System.getProperty(CONNECT_PROPERTY);
    if (connect != null) {
      return connect;
    }
    TestingServer server = start();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.close();
      } catch (IOException e) {
        System.err.println("bench: stopping the embedded ZooKeeper failed: " + e);
      }
    }, "bench-zk-stop"));
    connect = server.getConnectString();
    warmUp(connect);
    System.setProperty(CONNECT_PROPERTY, connect);
    return connect;
  }

  /**
   * Runs the lock recipes' server calls (a sequential ephemeral create, a listing, watches, a
   * delete, and a transaction of a create and a write) from a few threads for {@value #WARM_UP_SECONDS} s, so the server's hot paths are
   * compiled before the first measurement, for every target alike.
   */
  private static void warmUp(String connect) {
    CuratorFramework client = CuratorFrameworkFactory.newClient(connect, SESSION_TIMEOUT_MS, 10_000,
        new ExponentialBackoffRetry(100, 3));
    client.start();
    try {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WARM_UP_SECONDS);
      List<CompletableFuture<Void>> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        String dir = "/bench-warm-up/" + t;
        threads.add(CompletableFuture.runAsync(() -> {
          try {
            client.create().creatingParentsIfNeeded().forPath(dir);
            while (System.nanoTime() - end < 0) {
              String node = client.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(dir + "/n-");
              client.getChildren().forPath(dir);
              client.checkExists().usingWatcher((Watcher) e -> { }).forPath(node);
              client.getData().usingWatcher((Watcher) e -> { }).forPath(node);
              client.delete().forPath(node);
              // A transaction of a create and a write, as dlock's acquire sends.
              List<CuratorTransactionResult> r = client.transaction().forOperations(
                  client.transactionOp().create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(dir + "/t-"),
                  client.transactionOp().setData().forPath(dir, new byte[0]));
              client.delete().forPath(r.get(0).getResultPath());
            }
          } catch (Exception e) {
            throw new IllegalStateException("warming up the embedded ZooKeeper failed: " + e, e);
          }
        }));
      }
      CompletableFuture.allOf(threads.toArray(new CompletableFuture<?>[0])).join();
      client.delete().deletingChildrenIfNeeded().forPath("/bench-warm-up");
    } catch (Exception e) {
      throw new IllegalStateException("warming up the embedded ZooKeeper failed: " + e, e);
    } finally {
      client.close();
    }
  }

  /**
   * Starts the server from a daemon thread: the server's threads inherit that, so they do not keep
   * the bench's JVM alive once the run is over (the shutdown hook then stops the server).
   */
  private static TestingServer start() {
    // No fsync per transaction, as the PostgreSQL targets run with fsync off: the disk of a shared
    // machine would otherwise decide the numbers. Read once, when ZooKeeper's log class loads.
    System.setProperty("zookeeper.forceSync", "no");
    // Nor a 64 MB zero-filled log file, and a snapshot, every 50,000 to 100,000 transactions:
    // both stall every client for as long as the disk takes, a few times a minute at these rates.
    System.setProperty("zookeeper.preAllocSize", "4096");
    System.setProperty("zookeeper.snapCount", "2000000");
    // maxClientCnxns 0: no per-address limit, since every client here comes from loopback.
    InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 200, 0,
        Map.of("maxSessionTimeout", String.valueOf(SESSION_TIMEOUT_MS)));
    CompletableFuture<TestingServer> started = new CompletableFuture<>();
    Thread starter = new Thread(() -> {
      try {
        started.complete(new TestingServer(spec, true));
      } catch (Exception | Error e) {
        started.completeExceptionally(e);
      }
    }, "bench-zk-start");
    starter.setDaemon(true);
    starter.start();
    try {
      return started.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the embedded ZooKeeper", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot start the embedded ZooKeeper", e.getCause());
    }
  }

  /** dlock's URL for the server. */
  static String url() {
    return "zookeeper://" + connectString() + "?sessionTimeout=" + SESSION_TIMEOUT_MS;
  }

  /** What a JMH fork needs on its command line to reach this server. */
  static List<String> forkJvmArgs() {
    return List.of("-D" + CONNECT_PROPERTY + "=" + connectString());
  }
}
