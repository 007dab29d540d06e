package dev.dlock.redis.sim;

import dev.dlock.testkit.sim.Invariants;
import dev.dlock.testkit.sim.Result;
import dev.dlock.testkit.sim.Scheduler;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * One seeded run: two to four clients contend for one lock (exclusive, or fair in a third of the
 * seeds) on one simulated Redis, while the seed's dice interleave their steps, delay and drop
 * notifications, let leases and queue places expire on the virtual clock, crash clients (a
 * restarted process comes back under a new client id) and pause them. The invariants are checked
 * before and after every step; the run stops at the first violation or at the horizon.
 */
final class Simulation {
  /** How far the token counter starts ahead of the clock, when it does: a minute, in micros. */
  private static final long COUNTER_AHEAD = 60_000_000;
  /** Server micros start far from zero, as a real clock's do. */
  private static final long START = 1_000_000_000_000L;

  private final long seed;
  private final Scheduler clock;
  private final Random random;
  private final Set<Bug> bugs;
  private final SimSettings settings;
  private final List<SimClient> clients = new ArrayList<>();

  Simulation(long seed, SimSettings settings, Set<Bug> bugs, boolean traced) {
    this.seed = seed;
    this.settings = settings;
    this.clock = new Scheduler(seed, START, traced);
    this.random = clock.random();
    this.bugs = bugs.isEmpty() ? EnumSet.noneOf(Bug.class) : EnumSet.copyOf(bugs);
  }

  Result run() {
    boolean isFair = random.nextInt(3) == 0;
    SimNetwork network = new SimNetwork(clock, settings.dropRate(), settings.maxMessageDelayMicros());
    // In half the seeds the token counter starts ahead of the server's clock (a clock set back, or a
    // failover to a slower one), so that the spare tokens alone keep grants apart, not the clock.
    long counter = random.nextBoolean() ? START + COUNTER_AHEAD : 0;
    SimServer server = new SimServer(settings.waiterTimeoutMs(), network, bugs, counter);
    SimFairServer fair = isFair ? new SimFairServer(settings.waiterTimeoutMs(), network, bugs) : null;
    Invariants invariants = new Invariants();
    QueueChecks checks = new QueueChecks(invariants, settings.strandBoundMicros(isFair), isFair);
    int count = 2 + random.nextInt(3);
    clock.trace(() -> "seed " + seed + ", " + count + " clients, " + (isFair ? "fair lock" : "exclusive lock") + ", bugs " + bugs);
    long end = clock.now() + settings.horizonMicros();
    for (int i = 0; i < count; i++) {
      SimClient c = newClient("c" + i, network, server, fair, invariants);
      c.start((long) (random.nextDouble() * 200_000));
      if (random.nextInt(3) == 0) {
        clock.at(clock.now() + (long) (random.nextDouble() * settings.horizonMicros()),
            () -> crash(c, network, server, fair, checks, invariants));
      }
      if (random.nextInt(3) == 0) {
        clock.at(clock.now() + (long) (random.nextDouble() * settings.horizonMicros()), () -> pause(c, checks));
      }
    }
    Runnable check = () -> checks.check(clock.now(), clients,
        fair != null ? fair.key().freeSince(clock.now()) : server.key().freeSince(clock.now()));
    clock.run(end, invariants, check);
    if (invariants.violation() == null) {
      clock.advanceTo(end);
      check.run();
    }
    clock.trace(() -> "end: " + (fair != null ? fair : server) + (invariants.violation() == null ? "" : "\nVIOLATION " + invariants.violation()));
    return clock.result(invariants);
  }

  private SimClient newClient(String id, SimNetwork network, SimServer server, SimFairServer fair,
      Invariants invariants) {
    SimClient c = new SimClient(id, clock, server, fair, invariants, bugs, settings);
    clients.add(c);
    network.subscribe(id, c);
    return c;
  }

  /** Freezes the client's process, as a stop-the-world pause does. */
  private void pause(SimClient c, QueueChecks checks) {
    long micros = (long) (random.nextDouble() * 3_000_000);
    c.pause(micros);
    checks.crashed(clock.now() + micros);
  }

  /** Kills the client's process; a new one starts later under a new id. */
  private void crash(SimClient c, SimNetwork network, SimServer server, SimFairServer fair, QueueChecks checks,
      Invariants invariants) {
    if (c.phase() == SimClient.Phase.DEAD) {
      return;
    }
    c.crash();
    checks.crashed(clock.now());
    network.unsubscribe(c.id());
    SimClient next = newClient(c.id() + "r", network, server, fair, invariants);
    next.start((long) (random.nextDouble() * 1_000_000));
  }
}
