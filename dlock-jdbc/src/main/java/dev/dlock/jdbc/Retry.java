package dev.dlock.jdbc;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The package's one retry loop: runs an attempt until it gives an answer, pausing between attempts
 * a random time up to a bound that doubles from {@code firstPause} to {@code maxPause} (jitter, so
 * writers that collided do not collide again in step). The attempt itself decides when to give up,
 * by throwing, since each caller knows its own limit and error. A pause ends early on an interrupt
 * and leaves the flag set: the next attempt sees it and decides (a database call carries on, an
 * optimistic update stops with InterruptedException).
 */
final class Retry {
  /** One try; {@code n} counts from 1. Answers {@link #done} with a result or {@link #again()}. */
  @FunctionalInterface
  interface Attempt<T, X extends Exception> {
    Answer<T> run(int n) throws X;
  }

  /** An attempt's answer: a result, or "run me again" (whose result is null). */
  record Answer<T>(boolean done, @Nullable T result) {}

  private static final Answer<?> AGAIN = new Answer<>(false, null);
  private final long firstPauseNanos;
  private final long maxPauseNanos;

  Retry(Duration firstPause, Duration maxPause) {
    this.firstPauseNanos = firstPause.toNanos();
    this.maxPauseNanos = maxPause.toNanos();
  }

  /** The answer of an attempt that has its result. */
  static <T> Answer<T> done(T result) {
    return new Answer<>(true, result);
  }

  /** The answer of an attempt to be run again after a pause. */
  @SuppressWarnings("unchecked")
  static <T> Answer<T> again() {
    return (Answer<T>) AGAIN;
  }

  /** Runs {@code attempt} until it answers {@link #done}, and returns that result. */
  <T, X extends Exception> T run(Attempt<T, X> attempt) throws X {
    for (int n = 1; ; n++) {
      Answer<T> answer = attempt.run(n);
      if (answer.done()) {
        return Objects.requireNonNull(answer.result(), "the result of a done answer");
      }
      LockSupport.parkNanos(pauseNanos(n));
    }
  }

  /** A random pause after the {@code n}th attempt: up to firstPause × 2^(n-1), at most maxPause. */
  long pauseNanos(int n) {
    long bound = firstPauseNanos << Math.min(n - 1, 30);
    bound = bound <= 0 ? maxPauseNanos : Math.min(bound, maxPauseNanos);
    return bound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(bound + 1);
  }
}
