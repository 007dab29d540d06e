package dev.dlock.bench.scale;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/** The heap in use after a full collection, as the JVM reports it. */
final class Heap {
  private Heap() {}

  /**
   * Bytes of heap used after collecting twice: the second collection picks up what finalizers
   * and reference queues released during the first.
   */
  static long usedAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    memory.gc();
    memory.gc();
    return memory.getHeapMemoryUsage().getUsed();
  }
}
