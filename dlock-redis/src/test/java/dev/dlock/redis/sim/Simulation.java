package dev.dlock.redis.sim;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One seeded run: two to four clients contend for one lock (exclusive, or fair in a third of the
 * seeds) on one simulated Redis, while the seed's dice interleave their steps, delay and drop
 * notifications, let leases and queue places expire on the virtual clock, crash clients (a
 * restarted process comes back under a new client id) and pause them. The invariants are checked
 * before and after every step; the run stops at the first violation or at the horizon.
 */
final class Simulation implements Clock {
  /** A run's outcome: the first violation (null if none) and, when traced, what happened. */
  record Result(long seed, String violation, String trace) {}

  private record Step(long when, long order, Runnable action) {}

  private static final int MAX_STEPS = 50_000;

  private final long seed;
  private final Random random;
  private final StringBuilder trace;
  private final Set<Bug> bugs;
  private final SimSettings settings;
  private final PriorityQueue<Step> steps = new PriorityQueue<>((a, b) -> a.when() != b.when()
      ? Long.compare(a.when(), b.when()) : Long.compare(a.order(), b.order()));
  private final List<SimClient> clients = new ArrayList<>();
  private long order;
  private long now = 1_000_000_000_000L; // server micros start far from zero, as a real clock's do

  Simulation(long seed, SimSettings settings, Set<Bug> bugs, boolean traced) {
    this.seed = seed;
    this.settings = settings;
    this.random = new Random(seed);
    this.bugs = bugs.isEmpty() ? EnumSet.noneOf(Bug.class) : EnumSet.copyOf(bugs);
    this.trace = traced ? new StringBuilder() : null;
  }

  @Override
  public long now() {
    return now;
  }

  @Override
  public void at(long when, Runnable step) {
    steps.add(new Step(Math.max(when, now), order++, step));
  }

  @Override
  public Random random() {
    return random;
  }

  @Override
  public void trace(Supplier<String> line) {
    if (trace != null) {
      trace.append(now).append(' ').append(line.get()).append('\n');
    }
  }

  Result run() {
    boolean isFair = random.nextInt(3) == 0;
    SimNetwork network = new SimNetwork(this, settings.dropRate(), settings.maxMessageDelayMicros());
    SimServer server = new SimServer(settings.waiterTimeoutMs(), network, bugs);
    SimFairServer fair = isFair ? new SimFairServer(settings.waiterTimeoutMs(), network) : null;
    Invariants checks = new Invariants(settings.strandBoundMicros(isFair), isFair);
    int count = 2 + random.nextInt(3);
    trace(() -> "seed " + seed + ", " + count + " clients, " + (isFair ? "fair lock" : "exclusive lock") + ", bugs " + bugs);
    long end = now + settings.horizonMicros();
    for (int i = 0; i < count; i++) {
      SimClient c = newClient("c" + i, network, server, fair, checks);
      c.start((long) (random.nextDouble() * 200_000));
      if (random.nextInt(3) == 0) {
        at(now + (long) (random.nextDouble() * settings.horizonMicros()), () -> crash(c, network, server, fair, checks));
      }
      if (random.nextInt(3) == 0) {
        at(now + (long) (random.nextDouble() * settings.horizonMicros()),
            () -> pause(c, checks));
      }
    }
    int done = 0;
    while (!steps.isEmpty() && steps.peek().when() <= end && checks.violation() == null && done++ < MAX_STEPS) {
      Step s = steps.poll();
      now = s.when();
      check(checks, server, fair);
      s.action().run();
      check(checks, server, fair);
    }
    if (checks.violation() == null) {
      now = end;
      check(checks, server, fair);
    }
    trace(() -> "end: " + (fair != null ? fair : server) + (checks.violation() == null ? "" : "\nVIOLATION " + checks.violation()));
    return new Result(seed, checks.violation(), trace == null ? "" : trace.toString());
  }

  private void check(Invariants checks, SimServer server, SimFairServer fair) {
    checks.check(now, clients, fair != null ? fair.freeSince(now) : server.freeSince(now));
  }

  private SimClient newClient(String id, SimNetwork network, SimServer server, SimFairServer fair,
      Invariants checks) {
    SimClient c = new SimClient(id, this, server, fair, checks, bugs, settings);
    clients.add(c);
    network.subscribe(id, c);
    return c;
  }

  /** Freezes the client's process, as a stop-the-world pause does. */
  private void pause(SimClient c, Invariants checks) {
    long micros = (long) (random.nextDouble() * 3_000_000);
    c.pause(micros);
    checks.crashed(now + micros);
  }

  /** Kills the client's process; a new one starts later under a new id. */
  private void crash(SimClient c, SimNetwork network, SimServer server, SimFairServer fair, Invariants checks) {
    if (c.phase() == SimClient.Phase.DEAD) {
      return;
    }
    c.crash();
    checks.crashed(now);
    network.unsubscribe(c.id());
    SimClient next = newClient(c.id() + "r", network, server, fair, checks);
    next.start((long) (random.nextDouble() * 1_000_000));
  }
}
