package dev.dlock.testkit;

/**
 * The conformance suite every dlock backend passes. Extend it in a test class, return a builder
 * for a fresh connection to the backend under test from {@link #newClientBuilder()}, and JUnit runs
 * every case against it:
 *
 * <pre>{@code
 * class MyBackendConformanceTest extends LockConformanceSuite {
 *   static final String URL = MyTestServer.start();   // one server for the whole class
 *
 *   @Override
 *   protected LockClientBuilder newClientBuilder() {
 *     return LockClient.builder().url(URL);             // a new connection on every call
 *   }
 * }
 * }</pre>
 *
 * <p>The cases cover acquire and release through both views, mutual exclusion, reentrancy,
 * ownership, lease expiry and loss signals, the watchdog, a crashed holder, timeouts, interrupts,
 * fencing tokens, one wake-up per release, a contention fuzz, argument checks and client close.
 * Every case uses lock names of its own, so the suite may share a server with other tests.
 *
 * <p>One case, tagged {@code virtual-threads}, runs 1,000 virtual threads and so needs a JDK 21 or
 * newer at run time (the suite itself is Java 17 code); on an older JDK it fails and says how to
 * point the build at a newer one. dlock's own build runs it in a second surefire execution on such
 * a JDK; a backend's build can do the same with the {@code groups} setting.
 *
 * <p>Timing: lease expiry and watchdog cases take a few {@link #testLease() leases}; the rest are
 * quick. Timing asserts allow {@link #timingSlack()} on top of the time they expect.
 */
public abstract class LockConformanceSuite extends SuiteBase
    implements BasicCases, ExpiryCases, WaitCases, ContentionCases, MisuseCases, LeaseExpiryCases {

  /** For subclasses. */
  protected LockConformanceSuite() {}
}
