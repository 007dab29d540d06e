package dev.dlock.zookeeper.sim;

import dev.dlock.testkit.sim.Invariants;
import dev.dlock.testkit.sim.Result;
import dev.dlock.testkit.sim.Scheduler;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * One seeded run: two to four clients contend for one exclusive lock on one simulated ZooKeeper,
 * while the seed's dice interleave their calls, delay watch events, touch sessions late at the
 * leader, drop connections (reconnecting to the same session, or finding it expired), pause
 * clients and crash them (a restarted process comes back with a new session). The invariants are
 * checked before and after every step; the run stops at the first violation or at the horizon.
 */
final class Simulation {
  private final long seed;
  private final Scheduler clock;
  private final Random random;
  private final Set<Bug> bugs;
  private final List<SimClient> clients = new ArrayList<>();

  Simulation(long seed, Set<Bug> bugs, boolean traced) {
    this.seed = seed;
    this.clock = new Scheduler(seed, 0, traced);
    this.random = clock.random();
    this.bugs = bugs.isEmpty() ? EnumSet.noneOf(Bug.class) : EnumSet.copyOf(bugs);
  }

  Result run() {
    Invariants invariants = new Invariants();
    QueueChecks checks = new QueueChecks(invariants);
    checks.watch(clients);
    SimServer server = new SimServer(clock, checks);
    int count = 2 + random.nextInt(3);
    clock.trace(() -> "seed " + seed + ", " + count + " clients, bugs " + bugs);
    for (int i = 0; i < count; i++) {
      SimClient c = newClient("c" + i, server, invariants);
      c.start((long) (random.nextDouble() * Timing.LEASE / 2));
      if (random.nextInt(4) == 0) {
        clock.at(someTime(), () -> crash(c, server, invariants));
      }
      if (random.nextInt(3) == 0) {
        long micros = (long) (random.nextDouble() * 1.5 * Timing.SESSION_TIMEOUT);
        clock.at(someTime(), () -> c.pause(micros));
      }
      if (random.nextInt(2) == 0) {
        long micros = (long) (random.nextDouble() * 1.5 * Timing.SESSION_TIMEOUT);
        clock.at(someTime(), () -> c.disconnect(micros));
      }
    }
    clock.run(Timing.HORIZON, invariants, () -> checks.check(clock.now(), server));
    clock.trace(() -> "end: " + server + (invariants.violation() == null ? "" : "\nVIOLATION " + invariants.violation()));
    return clock.result(invariants);
  }

  private long someTime() {
    return (long) (random.nextDouble() * Timing.HORIZON);
  }

  private SimClient newClient(String id, SimServer server, Invariants invariants) {
    SimClient c = new SimClient(id, clock, server, invariants, bugs);
    clients.add(c);
    return c;
  }

  /** Kills the process; its session lives on at the server until it expires; a new one starts later. */
  private void crash(SimClient c, SimServer server, Invariants invariants) {
    if (c.phase() == Phase.DEAD) {
      return;
    }
    c.crash();
    newClient(c.id() + "r", server, invariants).start((long) (random.nextDouble() * Timing.SESSION_TIMEOUT));
  }
}
