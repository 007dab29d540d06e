package dev.dlock.testkit.sim;

import org.jspecify.annotations.Nullable;

/**
 * One seeded run's outcome.
 *
 * @param seed the seed the run drew its dice from
 * @param violation the first invariant the run broke, or null if it kept them all
 * @param trace what happened, one line a step; empty unless the run was traced
 */
public record Result(long seed, @Nullable String violation, String trace) {}
