package dev.dlock.testkit;

/**
 * The conformance cases of a fair lock, for a backend whose {@code kinds()} include it. Extend it in a
 * test class of its own beside the backend's {@link LockConformanceSuite}, with the same
 * {@link #newClientBuilder()}.
 */
public abstract class FairLockConformanceSuite extends SuiteBase implements FairCases {

  /** For subclasses. */
  protected FairLockConformanceSuite() {}
}
