package dev.dlock.testkit;

import dev.dlock.LockClientBuilder;
import java.lang.reflect.Method;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

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
public abstract class LockConformanceSuite
    implements BasicCases, ExpiryCases, WaitCases, ContentionCases, MisuseCases {
  private final SuiteFixture fixture = new SuiteFixture(this);

  /**
   * A builder for a client on a fresh connection to the backend under test, typically
   * {@code LockClient.builder().backend(...)} or {@code LockClient.builder().url(...)}. The suite
   * calls it once per client, sets the lease time, listeners, client name and other settings on it,
   * builds it and closes the client after the test. Clients of one test must all reach the same
   * server, so that they contend for the same names.
   *
   * @return a new, unbuilt builder with its backend or URL set
   */
  protected abstract LockClientBuilder newClientBuilder();

  /**
   * The lease of the expiry and watchdog cases. Those cases take a few leases each; a backend whose
   * server clock is coarse (whole seconds, say) should return a lease several ticks long.
   *
   * @return a positive lease, at least 100 ms; 1 s by default
   */
  protected Duration testLease() {
    return Duration.ofSeconds(1);
  }

  /**
   * How far past the time it expects a timing assert still passes: the allowance for scheduling
   * delays, GC pauses and round trips. The default is generous for a loaded 2-core CI machine.
   *
   * @return a positive slack; 3 s by default
   */
  protected Duration timingSlack() {
    return Duration.ofSeconds(3);
  }

  /**
   * Whether the backend notifies a waiter when a lock is released. True by default: the cases on
   * wake-ups and on leaving nothing behind then turn polling off, so only a notification can move a
   * waiter and a swallowed notification fails the test. A backend that only polls (the SPI allows
   * it) returns false: those cases then keep the client's polling and check that no waiter is
   * stranded and none is woken more than once per release.
   *
   * @return true if releases are notified; true by default
   */
  protected boolean notifiesReleases() {
    return true;
  }

  /**
   * The per-test fixture; for the suite's own cases, not for subclasses.
   *
   * @return the fixture of the running test
   */
  @Override
  public final SuiteFixture f() {
    return fixture;
  }

  @BeforeEach
  final void beginConformanceTest(TestInfo info) {
    fixture.begin(info.getTestMethod().map(Method::getName).orElse("test"));
  }

  @AfterEach
  final void endConformanceTest() throws InterruptedException {
    fixture.end();
  }
}
