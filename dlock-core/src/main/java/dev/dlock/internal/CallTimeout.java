package dev.dlock.internal;

import dev.dlock.spi.Ticker;
import java.time.Duration;

/**
 * How long the backend call running on this thread may wait for its server. The engine bounds
 * every call it makes by the caller's deadline (an acquire's wait, a lease's time left) and sets
 * that bound here for the length of the call; a backend reads it with {@link #bound(Duration)}
 * where it would otherwise wait its own timeout. Why a thread-bound value and not a parameter: it
 * reaches every blocking point of a backend, however deep, without widening each SPI method, as a
 * request deadline does in an RPC framework.
 *
 * <p>A bound is never below {@link #MINIMUM}, so a call made just before a deadline still gets the
 * time one round trip needs; a wait therefore ends at most about that much after its deadline.
 */
public final class CallTimeout {
  /** The least time any call is given, however close its caller's deadline. */
  public static final Duration MINIMUM = Duration.ofMillis(200);

  private static final long MINIMUM_NANOS = MINIMUM.toNanos();
  private static final Ticker CLOCK = Ticker.system();
  // The deadline of the call in progress on this thread, on CLOCK, if the engine set one. A holder
  // that stays with the thread rather than an entry set and removed per call: that churn of the
  // thread's map showed in the profile of an uncontended lock+unlock.
  private static final ThreadLocal<Bound> BOUND = ThreadLocal.withInitial(Bound::new);

  private static final class Bound {
    boolean set;
    long deadline;
  }

  private CallTimeout() {}

  /**
   * The time this thread's current call may wait: {@code fallback} (the backend's own timeout),
   * shortened to the time left before the engine's deadline for the call, but not below
   * {@link #MINIMUM}.
   */
  public static Duration bound(Duration fallback) {
    return Duration.ofNanos(boundNanos(fallback.toNanos()));
  }

  /** {@link #bound(Duration)} in nanoseconds. */
  public static long boundNanos(long fallbackNanos) {
    Bound bound = BOUND.get();
    if (!bound.set) {
      return fallbackNanos;
    }
    long left = Math.max(MINIMUM_NANOS, bound.deadline - CLOCK.read());
    return Math.min(fallbackNanos, left);
  }

  /**
   * Runs {@code call} with its waits bounded to {@code limitNanos} from now (the engine's side;
   * tests may use it too). A negative limit sets no bound. Bounds nest: an inner call never gets
   * longer than the outer one has left.
   */
  public static <T, E extends Exception> T within(long limitNanos, Call<T, E> call) throws E {
    if (limitNanos < 0 || limitNanos > Long.MAX_VALUE / 4) {
      return call.run();
    }
    Bound bound = BOUND.get();
    boolean outerSet = bound.set;
    long outer = bound.deadline;
    long deadline = CLOCK.read() + limitNanos;
    if (outerSet && outer - deadline < 0) {
      deadline = outer;
    }
    bound.set = true;
    bound.deadline = deadline;
    try {
      return call.run();
    } finally {
      bound.set = outerSet;
      bound.deadline = outer;
    }
  }

  /**
   * A backend call, which may throw a checked exception such as {@link InterruptedException}.
   *
   * @param <T> what it returns
   * @param <E> what it may throw
   */
  @FunctionalInterface
  public interface Call<T, E extends Exception> {
    /**
     * Makes the call.
     *
     * @return its result
     * @throws E if it fails so
     */
    T run() throws E;
  }
}
