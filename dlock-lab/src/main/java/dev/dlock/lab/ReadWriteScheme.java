package dev.dlock.lab;

import java.time.Duration;

/**
 * A scheme with shared (read) holds as well as exclusive ones, for the {@code readwrite} workload.
 * Why an interface: the library's read-write lock (S13) and the naive one (S13-naive) must look
 * the same to the worker. {@link Scheme#acquire} takes the exclusive (write) hold.
 */
public interface ReadWriteScheme extends Scheme {
  /**
   * Takes the read lock of {@code lock} when {@code shared}, else its write lock, waiting up to
   * {@code wait}.
   *
   * @return the hold, or {@code null} when the wait ran out
   */
  Held acquire(String lock, boolean shared, Duration lease, Duration wait) throws Exception;

  @Override
  default Held acquire(String lock, Duration lease, Duration wait) throws Exception {
    return acquire(lock, false, lease, wait);
  }
}
