package dev.dlock.lab;

import java.time.Duration;

/**
 * One way for workers to keep each other out, as the lab runs it: a dlock lock through the public
 * API, or one of the articles' schemes written as they describe it, flaws included. A worker opens
 * one scheme and calls it from one thread at a time.
 */
public interface Scheme extends AutoCloseable {
  /**
   * Takes {@code lock}, waiting up to {@code wait}.
   *
   * @return the hold, or {@code null} when the wait ran out
   */
  Held acquire(String lock, Duration lease, Duration wait) throws Exception;

  /** Whether grants carry a fencing token. */
  boolean fenced();

  @Override
  void close() throws Exception;

  /** One grant of a lock to this worker. */
  interface Held {
    /** The fencing token, or {@code -1} when the scheme has none. */
    long token();

    /** Whether the scheme has told the holder it lost the lock; schemes that cannot tell say false. */
    boolean lost();

    /**
     * Releases the lock as the scheme does.
     *
     * @return whose lock the release freed: this worker's owner id, another worker's, or
     *         {@code ""} when it freed nothing
     */
    String release() throws Exception;
  }
}
