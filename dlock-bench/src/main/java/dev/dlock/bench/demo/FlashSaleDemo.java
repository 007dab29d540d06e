package dev.dlock.bench.demo;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * {@code ./dlock demo}: a flash sale on the in-memory backend. Several workers, each its own
 * {@link LockClient} of one {@code mem:} server as separate service instances would be, run
 * buyer threads that all try to buy one item until it is sold out, first with no lock and then
 * with a dlock lock around the read and the write of the stock.
 *
 * <p>Between the read and the write each buyer waits 50 µs, as a real service waits on its database
 * there; with no lock, other buyers read the same count in that gap and the sale oversells. Every
 * number printed is counted, none is computed from the settings.
 */
public final class FlashSaleDemo {
  static final String LOCK_NAME = "stock:item-1";
  /**
   * The gap between reading and writing the stock, as a service spends it waiting on its database.
   * Real sleeping, not a spin: other buyers run in it on any number of cores.
   */
  static final long ROUND_TRIP_NANOS = 50_000;
  private static final AtomicInteger SERVERS = new AtomicInteger();

  /** The sizes of one demo run. */
  public record Settings(int stock, int workers, int buyersPerWorker) {
    public Settings {
      if (stock < 1 || workers < 1 || buyersPerWorker < 1) {
        throw new IllegalArgumentException("stock, workers and buyers must be at least 1");
      }
    }
  }

  /** What one strategy achieved: orders confirmed, of how much stock, how fast. */
  public record Outcome(String strategy, int stock, int sold, double buysPerSec, long p99Nanos) {
    /** Orders confirmed beyond the stock there was. */
    public int oversold() {
      return Math.max(0, sold - stock);
    }
  }

  /** One buy attempt: true if it bought an item, false if it found the stock sold out. */
  @FunctionalInterface
  interface Strategy {
    boolean buy(int worker, Stock stock) throws InterruptedException;
  }

  private FlashSaleDemo() {}

  public static void main(String[] args) throws Exception {
    Settings settings;
    try {
      settings = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("dlock demo: " + e.getMessage());
      System.err.println("usage: ./dlock demo [--stock N] [--workers M] [--buyers K]");
      System.exit(64);
      return;
    }
    System.out.printf("Flash sale: %d items, %d workers (one LockClient each, one mem: server) x %d buyer"
        + " threads%n%n", settings.stock(), settings.workers(), settings.buyersPerWorker());
    System.out.print(table(run(settings)));
    System.out.println();
    System.out.println("no lock: read the stock, wait 50 us (a database round trip), write stock-1;"
        + " buyers in the gap read the same count.");
    System.out.println("dlock:   the same, inside client.lock(\"" + LOCK_NAME + "\").acquire() with"
        + " try-with-resources.");
  }

  /** Runs the sale once per strategy, each time with fresh stock and fresh clients. */
  public static List<Outcome> run(Settings s) throws InterruptedException {
    List<Outcome> outcomes = new ArrayList<>();
    outcomes.add(sale("no lock", s, null));
    String url = "mem:flash-sale-" + SERVERS.incrementAndGet();
    List<LockClient> clients = new ArrayList<>();
    try {
      List<DistributedLock> locks = new ArrayList<>();
      for (int w = 0; w < s.workers(); w++) {
        LockClient client = LockClient.builder().url(url).clientName("worker-" + w).build();
        clients.add(client);
        locks.add(client.lock(LOCK_NAME));
      }
      outcomes.add(sale("dlock", s, locks));
    } finally {
      clients.forEach(LockClient::close);
    }
    return outcomes;
  }

  private static Outcome sale(String name, Settings s, List<DistributedLock> locks)
      throws InterruptedException {
    Strategy strategy = locks == null ? (worker, stock) -> buy(stock, () -> { }) : (worker, stock) -> {
      try (Lease lease = locks.get(worker).acquire()) {
        // Checking the lease before the write is what a real service would do; here it never fails.
        return buy(stock, lease::ensureValid);
      }
    };
    Stock stock = new Stock(s.stock());
    AtomicInteger sold = new AtomicInteger();
    int buyers = s.workers() * s.buyersPerWorker();
    Histogram[] latencies = new Histogram[buyers];
    Throwable[] failures = new Throwable[buyers];
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int b = 0; b < buyers; b++) {
      int buyer = b;
      int worker = b % s.workers();
      latencies[b] = new Histogram(3);
      threads.add(new Thread(() -> {
        try {
          start.await();
          while (true) {
            long t0 = System.nanoTime();
            if (!strategy.buy(worker, stock)) {
              break;
            }
            latencies[buyer].recordValue(System.nanoTime() - t0);
            sold.incrementAndGet();
          }
        } catch (Throwable t) {
          failures[buyer] = t;
        }
      }, "buyer-" + b));
    }
    threads.forEach(Thread::start);
    long t0 = System.nanoTime();
    start.countDown();
    for (Thread t : threads) {
      t.join();
    }
    long elapsed = System.nanoTime() - t0;
    Histogram all = new Histogram(3);
    for (int b = 0; b < buyers; b++) {
      if (failures[b] != null) {
        throw new IllegalStateException("buyer " + b + " failed (" + name + ")", failures[b]);
      }
      all.add(latencies[b]);
    }
    long p99 = all.getTotalCount() == 0 ? 0 : all.getValueAtPercentile(99);
    return new Outcome(name, s.stock(), sold.get(), sold.get() * 1e9 / elapsed, p99);
  }

  /** One buy: check, wait as a round trip to the stock's database would, write back one less. */
  private static boolean buy(Stock stock, Runnable beforeWrite) {
    int left = stock.read();
    if (left <= 0) {
      return false;
    }
    LockSupport.parkNanos(ROUND_TRIP_NANOS);
    beforeWrite.run();
    stock.write(left - 1);
    return true;
  }

  /** The outcomes as an aligned table. */
  static String table(List<Outcome> outcomes) {
    String fmt = "%-8s | %5s | %8s | %19s | %11s%n";
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, fmt, "strategy", "sold", "oversold", "throughput (buys/s)",
        "p99 latency"));
    sb.append("---------+-------+----------+---------------------+------------\n");
    for (Outcome o : outcomes) {
      sb.append(String.format(Locale.ROOT, fmt, o.strategy(), o.sold(), o.oversold(),
          String.format(Locale.ROOT, "%,.0f", o.buysPerSec()), micros(o.p99Nanos())));
    }
    return sb.toString();
  }

  private static String micros(long nanos) {
    return nanos < 1_000_000
        ? String.format(Locale.ROOT, "%.1f us", nanos / 1e3)
        : String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
  }

  static Settings parse(String[] args) {
    int stock = 100;
    int workers = 4;
    int buyers = 8;
    for (int k = 0; k < args.length; k++) {
      String option = args[k];
      if (k + 1 >= args.length) {
        throw new IllegalArgumentException(option.startsWith("--") ? option + " needs a value"
            : "unknown argument '" + option + "'");
      }
      int value;
      try {
        value = Integer.parseInt(args[++k]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(option + " takes a number, not '" + args[k] + "'");
      }
      switch (option) {
        case "--stock" -> stock = value;
        case "--workers" -> workers = value;
        case "--buyers" -> buyers = value;
        default -> throw new IllegalArgumentException("unknown option '" + option + "'");
      }
    }
    return new Settings(stock, workers, buyers);
  }
}
