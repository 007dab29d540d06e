package dev.dlock.bench.scale;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** Runs a task for 0 to n-1 on a few threads, each taking the next number, with progress lines. */
final class Spread {
  /** The work for one number. */
  interface Task {
    void run(int i) throws Exception;
  }

  private Spread() {}

  /**
   * Runs {@code task} once for each number below {@code n} on {@code threads} threads, printing
   * "{@code what} done of n (rate)" every 5 s.
   *
   * @return the seconds it took
   * @throws ExecutionException with the first failure of a task
   */
  static double run(int n, int threads, PrintStream progress, String what, Task task)
      throws InterruptedException, ExecutionException {
    AtomicInteger next = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    long start = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (Progress p = new Progress(progress, 5, () -> String.format(Locale.ROOT, "%s: %,d of %,d (%,.0f/s)",
        what, done.get(), n, done.get() / ((System.nanoTime() - start) / 1e9)))) {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(pool.submit(() -> {
          for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
            task.run(i);
            done.incrementAndGet();
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return (System.nanoTime() - start) / 1e9;
  }
}
