package dev.dlock.spi;

import java.util.Set;

/**
 * Opens backends for URL schemes; found through {@link java.util.ServiceLoader}, the way JDBC finds
 * drivers. Register an implementation in
 * {@code META-INF/services/dev.dlock.spi.LockBackendProvider}.
 */
public interface LockBackendProvider {

  /** The URL schemes handled, such as {@code "mem"} or {@code "redis"}, in lower case. */
  Set<String> schemes();

  /**
   * Opens a backend for {@code url}.
   *
   * @throws IllegalArgumentException if the URL is malformed, naming the URL (without password)
   * @throws dev.dlock.BackendUnavailableException if the server cannot be reached
   */
  LockBackend open(String url);
}
