package dev.dlock.testkit.sim;

import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One seeded run's virtual clock and its steps: the model's parts put steps at a time, the run
 * takes them in time order (ties in the order they were put), and every choice draws from the
 * seed's dice, so a seed replays the same run. Times are microseconds of virtual time.
 */
public final class Scheduler {
  private record Step(long when, long order, Runnable action) {}

  /** A run that still has steps after this many stops: a model that loops stays bounded. */
  private static final int MAX_STEPS = 50_000;

  private final long seed;
  private final Random random;
  private final @Nullable StringBuilder trace;
  private final PriorityQueue<Step> steps = new PriorityQueue<>((a, b) -> a.when() != b.when()
      ? Long.compare(a.when(), b.when()) : Long.compare(a.order(), b.order()));
  private long order;
  private long now;

  /**
   * Creates the scheduler of one run.
   *
   * @param seed the seed of the run's dice
   * @param start the virtual time the run starts at
   * @param traced whether to keep the trace (a replay of one seed) or drop it (a run of many)
   */
  public Scheduler(long seed, long start, boolean traced) {
    this.seed = seed;
    this.random = new Random(seed);
    this.trace = traced ? new StringBuilder() : null;
    this.now = start;
  }

  /**
   * Returns the virtual time.
   *
   * @return the time of the step running now, in microseconds
   */
  public long now() {
    return now;
  }

  /**
   * Runs {@code step} at {@code when}, after the steps already due then; a time already past
   * means now.
   *
   * @param when the virtual time to run it at
   * @param step what runs
   */
  public void at(long when, Runnable step) {
    steps.add(new Step(Math.max(when, now), order++, step));
  }

  /**
   * Returns the seed's dice.
   *
   * @return the one source of every random choice of the run
   */
  public Random random() {
    return random;
  }

  /**
   * Adds a line to the trace, kept only when the run is traced.
   *
   * @param line the line, built only when kept
   */
  public void trace(Supplier<String> line) {
    if (trace != null) {
      trace.append(now).append(' ').append(line.get()).append('\n');
    }
  }

  /**
   * Takes the steps due up to {@code end} in order, running {@code check} before and after each,
   * until none is left by then, {@code invariants} record a violation, or the step limit is reached.
   *
   * @param end the horizon: a step due later does not run
   * @param invariants the run's invariants, whose first violation stops it
   * @param check the checks to run before and after every step
   */
  public void run(long end, Invariants invariants, Runnable check) {
    int done = 0;
    while (!steps.isEmpty() && steps.peek().when() <= end && invariants.violation() == null
        && done++ < MAX_STEPS) {
      Step s = steps.poll();
      now = s.when();
      check.run();
      s.action().run();
      check.run();
    }
  }

  /**
   * Moves the clock to {@code when} without running a step, as for a last check at the horizon.
   *
   * @param when the virtual time to move to
   */
  public void advanceTo(long when) {
    now = when;
  }

  /**
   * Returns the run's outcome.
   *
   * @param invariants the run's invariants
   * @return the seed, the first violation and the trace
   */
  public Result result(Invariants invariants) {
    return new Result(seed, invariants.violation(), trace == null ? "" : trace.toString());
  }
}
