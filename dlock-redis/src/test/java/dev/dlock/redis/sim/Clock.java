package dev.dlock.redis.sim;

import java.util.Random;
import java.util.function.Supplier;

/** The scheduler as the model's parts see it: virtual time in microseconds, steps, the seed's dice. */
interface Clock {
  long now();

  /** Runs {@code step} at {@code when}, after the steps already due then. */
  void at(long when, Runnable step);

  Random random();

  /** Adds a line to the trace, kept only when one seed is replayed. */
  void trace(Supplier<String> line);
}
