package dev.dlock.testkit;

/**
 * The conformance cases of a read-write lock, for a backend whose {@code kinds()} include it. Extend it in a
 * test class of its own beside the backend's {@link LockConformanceSuite}, with the same
 * {@link #newClientBuilder()}.
 */
public abstract class ReadWriteLockConformanceSuite extends SuiteBase implements ReadWriteCases {

  /** For subclasses. */
  protected ReadWriteLockConformanceSuite() {}
}
