package dev.dlock.zookeeper.sim;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One seeded run: two to four clients contend for one exclusive lock on one simulated ZooKeeper,
 * while the seed's dice interleave their calls, delay watch events, touch sessions late at the
 * leader, drop connections (reconnecting to the same session, or finding it expired), pause
 * clients and crash them (a restarted process comes back with a new session). The invariants are
 * checked before and after every step; the run stops at the first violation or at the horizon.
 */
final class Simulation {
  /** A run's outcome: the first violation (null if none) and, when traced, what happened. */
  record Result(long seed, String violation, String trace) {}

  private record Step(long when, long order, Runnable action) {}

  private static final int MAX_STEPS = 50_000;

  private final long seed;
  private final Random random;
  private final StringBuilder trace;
  private final Set<Bug> bugs;
  private final PriorityQueue<Step> steps = new PriorityQueue<>((a, b) -> a.when() != b.when()
      ? Long.compare(a.when(), b.when()) : Long.compare(a.order(), b.order()));
  private final List<SimClient> clients = new ArrayList<>();
  private long order;
  private long now;

  Simulation(long seed, Set<Bug> bugs, boolean traced) {
    this.seed = seed;
    this.random = new Random(seed);
    this.bugs = bugs.isEmpty() ? EnumSet.noneOf(Bug.class) : EnumSet.copyOf(bugs);
    this.trace = traced ? new StringBuilder() : null;
  }

  long now() {
    return now;
  }

  /** Runs {@code step} at {@code when}, after the steps already due then. */
  void at(long when, Runnable step) {
    steps.add(new Step(Math.max(when, now), order++, step));
  }

  Random random() {
    return random;
  }

  /** Adds a line to the trace, kept only when one seed is replayed. */
  void trace(Supplier<String> line) {
    if (trace != null) {
      trace.append(now).append(' ').append(line.get()).append('\n');
    }
  }

  Result run() {
    Invariants checks = new Invariants();
    checks.watch(clients);
    SimServer server = new SimServer(this, checks);
    int count = 2 + random.nextInt(3);
    trace(() -> "seed " + seed + ", " + count + " clients, bugs " + bugs);
    for (int i = 0; i < count; i++) {
      SimClient c = newClient("c" + i, server, checks);
      c.start((long) (random.nextDouble() * Timing.LEASE / 2));
      if (random.nextInt(4) == 0) {
        at(someTime(), () -> crash(c, server, checks));
      }
      if (random.nextInt(3) == 0) {
        long micros = (long) (random.nextDouble() * 1.5 * Timing.SESSION_TIMEOUT);
        at(someTime(), () -> c.pause(micros));
      }
      if (random.nextInt(2) == 0) {
        long micros = (long) (random.nextDouble() * 1.5 * Timing.SESSION_TIMEOUT);
        at(someTime(), () -> c.disconnect(micros));
      }
    }
    int done = 0;
    while (!steps.isEmpty() && steps.peek().when() <= Timing.HORIZON && checks.violation() == null
        && done++ < MAX_STEPS) {
      Step s = steps.poll();
      now = s.when();
      checks.check(now, server);
      s.action().run();
      checks.check(now, server);
    }
    trace(() -> "end: " + server + (checks.violation() == null ? "" : "\nVIOLATION " + checks.violation()));
    return new Result(seed, checks.violation(), trace == null ? "" : trace.toString());
  }

  private long someTime() {
    return (long) (random.nextDouble() * Timing.HORIZON);
  }

  private SimClient newClient(String id, SimServer server, Invariants checks) {
    SimClient c = new SimClient(id, this, server, checks, bugs);
    clients.add(c);
    return c;
  }

  /** Kills the process; its session lives on at the server until it expires; a new one starts later. */
  private void crash(SimClient c, SimServer server, Invariants checks) {
    if (c.phase() == SimClient.Phase.DEAD) {
      return;
    }
    c.crash();
    newClient(c.id() + "r", server, checks).start((long) (random.nextDouble() * Timing.SESSION_TIMEOUT));
  }
}
