package dev.dlock.lab;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * F7 in one run: a wall clock steps forward by three leases, for real, mid-run. On Redlock (S10)
 * it is node C's, and the network is split as in Kleppmann's case against Redlock: worker 1 reaches
 * only nodes A, B and C, the others only C, D and E. When C's clock jumps past the TTL while worker
 * 1 holds, C lets its key expire while it still believes in its lease, and another worker takes C,
 * D and E. On S5 it is worker 2's clock, which then finds every lock it sees expired.
 *
 * <p>Why a class of its own: {@link CellRun} keeps the course of every run; what F7 changes in it
 * (whose clock, which paths are cut, what the injector logs) is kept here.
 */
final class ClockJump {
  /** The worker that reaches A, B and C on Redlock: the one that stops at its gap. */
  static final int HOLDER = 1;
  /** The worker whose clock jumps on S5. */
  static final int WORKER = 2;

  private final FakeClock workerClock;
  private final FakeClockRedlock server;
  private final Duration by;
  private final String target;

  private ClockJump(FakeClock workerClock, FakeClockRedlock server, Duration by, String target) {
    this.workerClock = workerClock;
    this.server = server;
    this.by = by;
    this.target = target;
  }

  /** Whether {@code cell} steps a server node's clock (Redlock's keys expire by each node's clock). */
  static boolean onServer(CellSpec cell) {
    return cell.fault().equals("F7") && cell.scheme().equals("S10");
  }

  /**
   * Sets up F7 for a run of {@code cell}: on Redlock, checks that node C is on a fake clock;
   * elsewhere, makes {@link #WORKER}'s fake clock in {@code dir}.
   *
   * @param server the run's server: the {@code redlock-clock} group for S10
   * @param lease  the run's lease: the jump is three of them, well past the TTL
   * @throws IllegalStateException when libfaketime is missing, or S10's server is not the one F7 needs
   */
  static ClockJump open(CellSpec cell, LabServer server, Path dir, Duration lease) {
    if (!cell.fault().equals("F7")) {
      throw new IllegalArgumentException("a clock jump is fault F7, was " + cell.fault());
    }
    Duration by = lease.multipliedBy(3);
    if (!onServer(cell)) {
      return new ClockJump(FakeClock.create(dir.resolve("w" + WORKER + "-clock")), null, by, "w" + WORKER);
    }
    if (!(server instanceof FakeClockRedlock redlock)) {
      throw new IllegalStateException(cell + " needs the redlock-clock server, with a node on a fake clock; was "
          + server);
    }
    return new ClockJump(null, redlock, by, FakeClockRedlock.NODE_NAME);
  }

  /**
   * On Redlock, cuts the paths in {@code links} for the whole run: {@link #HOLDER}'s to D and E,
   * every other worker's to A and B. Called once the workers are connected and before GO, so no
   * worker ever reaches the other side. Why both sides: a majority needs C either way, so every
   * worker waits out its node timeout alike and the holder gets the lock as often as the others;
   * cut off alone, it would lose nearly every race for A, B and C. Nothing elsewhere.
   */
  void cut(Links links, int workers) {
    if (server == null) {
      return;
    }
    if (links == null || links.nodes() != 5) {
      throw new IllegalStateException("F7 on Redlock needs a path per worker to each of the 5 nodes, was " + links);
    }
    for (int w = 1; w <= workers; w++) {
      links.cut(w, w == HOLDER ? List.of(3, 4) : List.of(0, 1));
    }
  }

  /** What worker {@code worker} (from 1) adds to its environment: a fake clock's, or nothing. */
  Map<String, String> environment(int worker) {
    return workerClock != null && worker == WORKER ? workerClock.environment() : Map.of();
  }

  /**
   * Steps the clock forward, logged as a fault window of no length ({@code F7 node-C} or
   * {@code F7 w2}) in the injector's history.
   */
  void jump(History injector) {
    String what = "F7 " + target;
    injector.log("fault", "invoke", "", -1, what);
    if (server != null) {
      server.jump(by);
    } else {
      workerClock.jump(by);
    }
    injector.log("fault", "ok", "", -1, what);
  }

  /** How far one jump steps the clock. */
  Duration by() {
    return by;
  }
}
