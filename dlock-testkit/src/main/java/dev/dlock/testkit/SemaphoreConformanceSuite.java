package dev.dlock.testkit;

/**
 * The conformance cases of a semaphore, for a backend whose {@code kinds()} include it. Extend it in a
 * test class of its own beside the backend's {@link LockConformanceSuite}, with the same
 * {@link #newClientBuilder()}.
 */
public abstract class SemaphoreConformanceSuite extends SuiteBase implements SemaphoreCases {

  /** For subclasses. */
  protected SemaphoreConformanceSuite() {}
}
