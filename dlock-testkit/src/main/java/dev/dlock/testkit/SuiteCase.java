package dev.dlock.testkit;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;

/**
 * What every group of cases sees. The groups are JUnit test interfaces whose cases are default
 * methods; the suites implement them ({@link LockConformanceSuite} all, {@link SessionLockConformanceSuite}
 * all but the lease-expiry cases), so a backend's one test class runs every case and reports it
 * under its own name, without a chain of abstract classes.
 */
interface SuiteCase {

  /** The per-test fixture: clients, names, workers and timing. */
  SuiteFixture f();

  /** Takes a lock that must be free at this moment, without waiting. */
  default Lease take(DistributedLock lock) {
    return take(lock, "nothing holds it");
  }

  /** Takes a lock that must be free at this moment, saying why it should be. */
  default Lease take(DistributedLock lock, String why) {
    return lock.tryAcquire().orElseThrow(() -> new AssertionError(
        "lock '" + lock.name() + "' should be free at once: " + why));
  }
}
