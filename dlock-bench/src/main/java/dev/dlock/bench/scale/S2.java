package dev.dlock.bench.scale;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Scale row S2: one client locks and unlocks each of n distinct names once (one rotation), on 1
 * thread and then on more, the same names each time. Before and after each rotation it weighs the
 * client's heap after GC and counts what the server stores, to show whether either is returned
 * once the names are released.
 */
final class S2 {
  /**
   * One S2 row: one rotation on {@code threads} threads; heaps in bytes after GC; stored in the
   * backend's unit, -1 where it cannot count; held: the client's holds left after the rotation.
   */
  record Result(String backend, int threads, int names, double opsPerSec, long heapBefore, long heapAfter,
      long storedBefore, long storedAfter, String storedUnit, int heldAfter) {}

  private S2() {}

  static List<Result> run(ScaleBackend b, int names, List<Integer> threadCounts, PrintStream progress)
      throws Exception {
    List<Result> rows = new ArrayList<>();
    try (LockClient client = LockClient.builder().backend(b.open()).clientName("scale").build()) {
      for (int threads : threadCounts) {
        progress.printf("bench: scale S2 on %s, %d thread(s), %,d names ...%n", b.name(), threads, names);
        long storedBefore = b.stored();
        long heapBefore = Heap.usedAfterGc();
        double seconds = Spread.run(names, threads, progress, "S2 " + b.name() + " names", i -> {
          DistributedLock lock = client.lock("s2-" + i);
          lock.lock();
          lock.unlock();
        });
        long heapAfter = Heap.usedAfterGc();
        rows.add(new Result(b.name(), threads, names, names / seconds, heapBefore, heapAfter, storedBefore,
            b.stored(), b.storedUnit(), client.held().size()));
      }
    }
    return rows;
  }
}
