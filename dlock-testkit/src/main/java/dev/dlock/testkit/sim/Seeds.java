package dev.dlock.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;

/**
 * Runs a simulation over many seeds: every seed must keep the invariants, and a deliberately broken
 * model must break one. A failing seed is reported with the property that replays it and prints its
 * trace.
 */
public final class Seeds {
  /** How many seeds a broken model has to show itself in. */
  private static final int SEEDS_FOR_A_BUG = 20_000;

  /** One seeded run of a model. */
  @FunctionalInterface
  public interface Run {
    /**
     * Runs the model with one seed.
     *
     * @param seed the seed of its dice
     * @param traced whether to keep the trace
     * @return the outcome
     */
    Result run(long seed, boolean traced);
  }

  private Seeds() {}

  /**
   * Runs seeds 1 to {@code runs} and fails at the first that breaks an invariant, naming the
   * replay property; if the system property {@code seedProperty} is set, runs that one seed
   * alone, traced, and prints its trace.
   *
   * @param seedProperty the system property that names one seed to replay
   * @param runs how many seeds run
   * @param run the model
   */
  public static void keepInvariants(String seedProperty, int runs, Run run) {
    String one = System.getProperty(seedProperty);
    if (one != null) {
      Result r = run.run(Long.parseLong(one), true);
      System.out.println(r.trace());
      assertEquals(null, r.violation(), "seed " + one);
      return;
    }
    for (long seed = 1; seed <= runs; seed++) {
      Result r = run.run(seed, false);
      if (r.violation() != null) {
        throw new AssertionError("seed " + seed + ": " + r.violation()
            + "; replay with -D" + seedProperty + "=" + seed + " to print its trace");
      }
    }
  }

  /**
   * The broken model must fail some seed within 20,000, with a violation it can cause.
   *
   * @param bug the break, for the message
   * @param run the broken model
   * @param violations the prefixes of the violations the break may cause
   */
  public static void assertCaught(Enum<?> bug, Run run, String... violations) {
    for (long seed = 1; seed <= SEEDS_FOR_A_BUG; seed++) {
      String violation = run.run(seed, false).violation();
      if (violation != null) {
        if (Arrays.stream(violations).noneMatch(violation::startsWith)) {
          throw new AssertionError(bug + " broke something else at seed " + seed + ": " + violation);
        }
        return;
      }
    }
    throw new AssertionError(bug + " passed 20,000 seeds: the checks do not catch it");
  }
}
