package dev.dlock.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import dev.dlock.jdbc.OptimisticUpdate;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * One worker process of {@code dlock demo}: K buyer threads that buy one item at a time through one
 * strategy until the stock reads zero: no lock, a lock around read and write (S1, S3, S8, S12), or
 * an optimistic versioned update that retries on conflict (S2). It prints READY once connected, starts on GO from stdin,
 * and ends with one RESULT line that the coordinator adds up.
 */
public final class DemoWorker {
  /** Between reading and writing the stock a buyer checks the payment: the window races fall in. */
  static final long CHECKOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final String url;
  private final Strategy strategy;
  private final String lockUrl;
  private final AtomicInteger waits = new AtomicInteger();
  private LockClient client;
  private OptimisticUpdate optimistic;
  private HikariDataSource optimisticPool;

  private DemoWorker(String url, Strategy strategy, String lockUrl) {
    this.url = url;
    this.strategy = strategy;
    this.lockUrl = lockUrl;
  }

  /** {@code DemoWorker SHOP_URL STRATEGY BUYERS LOCK_URL}; LOCK_URL is {@code -} for no lock. */
  public static void main(String[] args) {
    int status;
    try {
      status = new DemoWorker(args[0], Strategy.valueOf(args[1]), args[3].equals("-") ? null : args[3])
          .run(Integer.parseInt(args[2]));
    } catch (Exception e) {
      System.err.println("dlock demo worker: " + e.getMessage());
      status = 1;
    }
    System.exit(status);
  }

  private int run(int buyers) throws Exception {
    client = lockUrl == null ? null : LockClient.builder().url(lockUrl)
        .clientName("demo").listener(new LockListener() {
          @Override
          public void waited(String name) {
            waits.incrementAndGet();
          }
        }).build();
    if (strategy == Strategy.OPTIMISTIC) {
      optimisticPool = new HikariDataSource();
      optimisticPool.setJdbcUrl(url);
      optimisticPool.setMaximumPoolSize(buyers);
      optimistic = OptimisticUpdate.builder().dataSource(optimisticPool).table("demo_stock").keyColumn("id")
          .valueColumn("quantity").versionColumn("version").maxConflicts(10_000)
          .backoff(Duration.ofMillis(1), Duration.ofMillis(20)).build();
    }
    List<Buyer> all = new ArrayList<>();
    for (int i = 0; i < buyers; i++) {
      all.add(new Buyer(DriverManager.getConnection(url)));
    }
    System.out.println("READY");
    System.out.flush();
    String go = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    if (!"GO".equals(go)) {
      return 2;
    }
    for (Buyer b : all) {
      b.start();
    }
    int sold = 0;
    List<Long> micros = new ArrayList<>();
    for (Buyer b : all) {
      b.join();
      if (b.failure != null) {
        throw b.failure;
      }
      sold += b.latencies.size();
      micros.addAll(b.latencies);
      b.connection.close();
    }
    if (client != null) {
      client.close();
    }
    if (optimisticPool != null) {
      optimisticPool.close();
    }
    System.out.println("RESULT " + sold + " " + waits.get() + " "
        + micros.stream().map(String::valueOf).collect(Collectors.joining(",")));
    return 0;
  }

  /** One buyer thread on its own connection. */
  private final class Buyer extends Thread {
    final Connection connection;
    final List<Long> latencies = new ArrayList<>();
    Exception failure;

    Buyer(Connection connection) {
      this.connection = connection;
    }

    @Override
    public void run() {
      try {
        while (true) {
          long t0 = System.nanoTime();
          if (!buyOne()) {
            return;
          }
          latencies.add((System.nanoTime() - t0) / 1000);
        }
      } catch (Exception e) {
        failure = e;
      }
    }

    private boolean buyOne() throws Exception {
      if (optimistic != null) {
        OptimisticUpdate.Result r = optimistic.update(Shop.ITEM, left -> {
          if (left <= 0) {
            return OptionalLong.empty();
          }
          LockSupport.parkNanos(CHECKOUT_NANOS);
          return OptionalLong.of(left - 1);
        });
        waits.addAndGet(r.conflicts());
        return r.applied();
      }
      if (client == null) {
        return readCheckWrite();
      }
      try (Lease lease = client.lock("demo-stock-" + Shop.ITEM).acquire()) {
        return readCheckWrite();
      }
    }

    private boolean readCheckWrite() throws Exception {
      int left = Shop.quantity(connection);
      if (left <= 0) {
        return false;
      }
      LockSupport.parkNanos(CHECKOUT_NANOS);
      Shop.write(connection, left - 1);
      return true;
    }
  }

  /** How buyers keep each other out. */
  enum Strategy {
    NONE("no lock"),
    LEASE("S1 lease lock"),
    OPTIMISTIC("S2 optimistic"),
    SESSION("S3 session lock"),
    REDIS("S8 Redis lock"),
    ZOOKEEPER("S12 ZooKeeper lock");

    final String label;

    Strategy(String label) {
      this.label = label;
    }
  }
}
