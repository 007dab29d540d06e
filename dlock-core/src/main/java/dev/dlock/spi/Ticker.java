package dev.dlock.spi;

/**
 * A monotonic clock in nanoseconds, injected wherever lease arithmetic happens so that tests can
 * drive time. Values are only meaningful as differences; they are never wall-clock time.
 */
@FunctionalInterface
public interface Ticker {

  /** The current time in nanoseconds on this clock. */
  long read();

  /** {@link System#nanoTime()}. */
  static Ticker system() {
    return System::nanoTime;
  }
}
