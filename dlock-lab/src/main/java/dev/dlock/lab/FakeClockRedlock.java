package dev.dlock.lab;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Redlock's five independent Redis masters, A to E, with node C's wall clock on a
 * {@link FakeClock}: the server of S10 under F7, where C's clock jumps past the lease and C lets the
 * holder's key expire early. A server fault acts on all five, as on the plain {@code redlock} group.
 *
 * <p>Why a server of its own: every other Redlock cell keeps true clocks, and C's clock only ever
 * goes forward, run after run, so no key outlives its TTL for a clock set back.
 */
final class FakeClockRedlock extends RedisGroup {
  /** The node whose clock jumps: C, the third, an index into {@link #ports()}. */
  static final int NODE = 2;
  /** How the injector names that node. */
  static final String NODE_NAME = "node-C";
  private static final int NODES = 5;

  private final FakeClock clock;
  private final Path clockDir;

  private FakeClockRedlock(List<RedisProcess> nodes, FakeClock clock, Path clockDir) {
    super(nodes);
    this.clock = clock;
    this.clockDir = clockDir;
  }

  /**
   * Starts the five nodes in new folders under {@code dir}, C under libfaketime at offset 0; all or
   * none.
   *
   * @throws IllegalStateException when libfaketime is missing, before any server starts
   */
  static FakeClockRedlock start(Path dir) {
    Path clockDir = Procs.createDir(dir, "clock-C-");
    FakeClock clock;
    try {
      clock = FakeClock.create(clockDir);
    } catch (RuntimeException e) {
      Procs.deleteTree(clockDir);
      throw e;
    }
    List<RedisProcess> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < NODES; i++) {
        nodes.add(RedisProcess.start(dir, RedisProcess.Persistence.NONE, i == NODE ? clock.environment() : Map.of()));
      }
    } catch (RuntimeException e) {
      nodes.forEach(RedisProcess::close);
      Procs.deleteTree(clockDir);
      throw e;
    }
    return new FakeClockRedlock(nodes, clock, clockDir);
  }

  /** Steps node C's wall clock forward by {@code by}; C sees it at its next command or timer. */
  void jump(Duration by) {
    clock.jump(by);
  }

  /** The node whose clock jumps. */
  RedisProcess node() {
    return nodes.get(NODE);
  }

  @Override
  public void close() {
    super.close();
    Procs.deleteTree(clockDir);
  }

  @Override
  public String toString() {
    return "redlock " + url() + " with " + NODE_NAME + " on " + clock;
  }
}
