package dev.dlock.testkit;

import dev.dlock.LockClientBuilder;
import java.lang.reflect.Method;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * What every suite shares: the settings a backend's test class overrides, and the per-test fixture.
 * Package-private, so backends extend one of the public suites, which each add their groups of
 * cases.
 */
abstract class SuiteBase implements SuiteCase {
  private final SuiteFixture fixture = new SuiteFixture(this);

  SuiteBase() {}

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
