package dev.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.mem.MemServer;
import dev.dlock.spi.Ticker;
import dev.dlock.testkit.TamperedBackend.Fault;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The suite has teeth: each case below fails against a backend with the one fault it exists to
 * catch, for the reason it checks, and passes against the same backend untampered. The cases are
 * called directly, with the suite's own per-test setup and cleanup around each.
 */
class SuiteCatchesBrokenBackendsTest {

  @FunctionalInterface
  private interface Case {
    void run(TamperedSuite suite) throws Exception;
  }

  /** The suite on a private mem server whose every connection carries {@code fault}. */
  private static final class TamperedSuite extends LockConformanceSuite {
    private final MemServer server = MemServer.create(Ticker.system());
    private final Fault fault;

    TamperedSuite(Fault fault) {
      this.fault = fault;
    }

    @Override
    protected LockClientBuilder newClientBuilder() {
      return LockClient.builder().backend(new TamperedBackend(server.newBackend(), fault));
    }

    // With a fault, short timings make a case waiting for what the fault prevents give up quickly;
    // the untampered control keeps the defaults every real backend runs with.

    @Override
    protected Duration testLease() {
      return fault == Fault.NONE ? super.testLease() : Duration.ofMillis(300);
    }

    @Override
    protected Duration timingSlack() {
      return fault == Fault.NONE ? super.timingSlack() : Duration.ofSeconds(1);
    }
  }

  private static final Case WAKE_UPS = s -> s.eachReleaseWakesOneWaiter();
  private static final Case FENCING = s -> s.fencingTokensStrictlyIncreaseAcrossClients();
  private static final Case WATCHDOG = s -> s.watchdogKeepsARenewedLeaseBeyondThreeLeases();
  private static final Case INTERRUPT = s -> s.interruptedTimedAcquireLeavesNothingBehind();
  private static final Case TIMEOUT = s -> s.tryAcquireWithAWaitGivesUpAfterTheWait();
  private static final Case FUZZ = s -> s.mutualExclusionHoldsUnderContention();

  private static Throwable run(Fault fault, Case c) throws InterruptedException {
    TamperedSuite suite = new TamperedSuite(fault);
    suite.beginConformanceTest(new TestInfo() {
      @Override
      public String getDisplayName() {
        return fault.name();
      }

      @Override
      public Set<String> getTags() {
        return Set.of();
      }

      @Override
      public Optional<Class<?>> getTestClass() {
        return Optional.of(TamperedSuite.class);
      }

      @Override
      public Optional<Method> getTestMethod() {
        return Optional.empty();
      }
    });
    try {
      c.run(suite);
      return null;
    } catch (Throwable t) {
      return t;
    } finally {
      suite.endConformanceTest();
    }
  }

  private static void assertCaught(Fault fault, Case c, String why) throws InterruptedException {
    assertThat(run(fault, c)).as("the case against a backend with %s", fault)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(why);
  }

  @Test
  void lostReleaseNotificationsAreCaught() throws InterruptedException {
    assertCaught(Fault.SILENT_RELEASES, WAKE_UPS, "did not finish within");
  }

  @Test
  void descendingTokensAreCaught() throws InterruptedException {
    assertCaught(Fault.DESCENDING_TOKENS, FENCING, "token of grant");
  }

  @Test
  void renewalsThatExtendNothingAreCaught() throws InterruptedException {
    assertCaught(Fault.IGNORED_RENEWALS, WATCHDOG, "another client while the lease is renewed");
  }

  @Test
  void waitersLeftQueuedAfterAnInterruptOrTimeoutAreCaught() throws InterruptedException {
    assertCaught(Fault.IGNORED_CANCELS, INTERRUPT, "fresh-waiter did not finish within");
    assertCaught(Fault.IGNORED_CANCELS, TIMEOUT, "fresh-waiter did not finish within");
  }

  @Test
  void brokenExclusionIsCaughtByTheFuzz() throws InterruptedException {
    assertCaught(Fault.INSTANT_EXPIRY, FUZZ, "overlapped");
  }

  @Test
  void theSameCasesPassOnTheUntamperedBackend() throws InterruptedException {
    for (Case c : new Case[] {WAKE_UPS, FENCING, WATCHDOG, INTERRUPT, TIMEOUT, FUZZ}) {
      Throwable failure = run(Fault.NONE, c);
      if (failure != null) {
        throw new AssertionError("a case failed on the untampered backend", failure);
      }
    }
  }
}
