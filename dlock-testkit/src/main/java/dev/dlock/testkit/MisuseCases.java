package dev.dlock.testkit;

import static dev.dlock.testkit.EventRecorder.Kind.WAITED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.LockException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** Bad arguments, closed clients and unknown URLs. */
@SuppressWarnings("NullAway") // passes null on purpose to check the guards
interface MisuseCases extends SuiteCase {
  Duration ABSURD = Duration.ofDays(100_000);

  private static void assertRejected(ThrowingCallable call, Class<? extends RuntimeException> type,
      String argument, String value) {
    assertThatThrownBy(call).isInstanceOf(type)
        .hasMessageContaining(argument)
        .hasMessageContaining(value);
  }

  /** Every bad argument, each failing with a message that names the argument and its value. */
  private void assertArgumentsChecked(LockClient client, String name) {
    Duration lease = Duration.ofSeconds(30);
    String tooLong = "n".repeat(100_000);
    assertRejected(() -> client.lock(null), NullPointerException.class, "name", "null");
    assertRejected(() -> client.lock(null, lease), NullPointerException.class, "name", "null");
    assertRejected(() -> client.lock(""), IllegalArgumentException.class, "name", "empty");
    assertRejected(() -> client.lock("", lease), IllegalArgumentException.class, "name", "empty");
    assertRejected(() -> client.lock(tooLong), IllegalArgumentException.class, "name", "100000");
    assertRejected(() -> client.lock(tooLong, lease), IllegalArgumentException.class, "name", "100000");
    for (Duration bad : List.of(Duration.ofSeconds(-1), Duration.ZERO, ABSURD)) {
      assertRejected(() -> client.lock(name, bad), IllegalArgumentException.class, "leaseTime",
          bad.toString());
    }
    assertRejected(() -> client.lock(name, null), NullPointerException.class, "leaseTime", "null");

    DistributedLock lock = client.lock(name);
    Duration negative = Duration.ofMillis(-1);
    assertRejected(() -> lock.acquire(negative), IllegalArgumentException.class, "maxWait",
        negative.toString());
    assertRejected(() -> lock.tryAcquire(negative), IllegalArgumentException.class, "maxWait",
        negative.toString());
    assertRejected(() -> lock.acquire(null), NullPointerException.class, "maxWait", "null");
    assertRejected(() -> lock.tryAcquire(null), NullPointerException.class, "maxWait", "null");
  }

  @Test
  default void badArgumentsAreRejectedNamingTheArgumentAndValue() {
    LockClient client = f().client();
    String name = f().name();
    assertArgumentsChecked(client, name);
    take(f().client().lock(name), "the rejected calls must not have taken it").close();
  }

  @Test
  default void argumentsAreCheckedBeforeTheClientIsFoundClosed() {
    LockClient client = f().client();
    client.close();
    // A closed client has no backend to call, so these errors show the checks come first.
    assertArgumentsChecked(client, f().name());
  }

  @Test
  default void badBuilderSettingsAreRejected() {
    LockClientBuilder builder = LockClient.builder();
    for (Duration bad : List.of(Duration.ofSeconds(-1), Duration.ZERO, ABSURD)) {
      assertRejected(() -> builder.leaseTime(bad), IllegalArgumentException.class, "leaseTime",
          bad.toString());
    }
    assertRejected(() -> builder.leaseTime(null), NullPointerException.class, "leaseTime", "null");
    assertRejected(() -> builder.clientName("a:b"), IllegalArgumentException.class, "clientName",
        "a:b");
    assertRejected(() -> builder.clientName(null), NullPointerException.class, "clientName", "null");
  }

  @Test
  default void closedClientRejectsNewAcquires() {
    String name = f().name();
    LockClient client = f().client();
    DistributedLock lock = client.lock(name);
    client.close();
    client.close();
    List<ThrowingCallable> calls = List.of(
        lock::acquire,
        () -> lock.acquire(Duration.ofSeconds(1)),
        lock::tryAcquire,
        () -> lock.tryAcquire(Duration.ofSeconds(1)),
        lock::lock,
        lock::lockInterruptibly,
        lock::tryLock,
        () -> lock.tryLock(1, TimeUnit.SECONDS),
        () -> client.lock(name, Duration.ofSeconds(5)).tryAcquire());
    for (ThrowingCallable call : calls) {
      assertThatThrownBy(call).isInstanceOf(LockException.class).hasMessageContaining(name);
    }
    assertThat(lock.holdCount()).isZero();
    assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  default void closingTheClientReleasesItsLocksAndSignalsTheirLoss() throws Exception {
    String first = f().name("first");
    String second = f().name("second");
    LockClient client = f().client();
    Lease a = client.lock(first).acquire(f().slack());
    Lease b = client.lock(second, Duration.ofSeconds(30)).acquire(f().slack());
    Lease released = client.lock(f().name("released")).acquire(f().slack());
    released.close();
    client.close();
    assertThat(released.lost().toCompletableFuture().isDone())
        .as("the loss signal of a lease released before the close").isFalse();
    for (Lease lease : List.of(a, b)) {
      LeaseLostException reason =
          lease.lost().toCompletableFuture().get(f().slack().toMillis(), TimeUnit.MILLISECONDS);
      assertThat(reason).hasMessageContaining(lease.name());
      assertThat(lease.isValid()).isFalse();
      assertThatThrownBy(lease::ensureValid).isInstanceOf(LeaseLostException.class);
    }
    LockClient other = f().client();
    for (String name : List.of(first, second)) {
      take(other.lock(name), "its client closed").close();
    }
  }

  @Test
  default void closingTheClientFailsItsWaitingThreads() throws InterruptedException {
    String name = f().name();
    Lease held = f().client().lock(name).acquire(f().slack());
    LockClient client = f().client();
    DistributedLock lock = client.lock(name);
    Duration patience = f().patience();
    Worker<Lease> leaseWaiter = f().start("lease-waiter", () -> lock.acquire(patience));
    f().events(client).awaitCount(WAITED, name, 1, f().slack());
    Worker<Void> lockWaiter = f().start("lock-waiter", () -> {
      lock.lock();
      return null;
    });
    f().events(client).awaitCount(WAITED, name, 2, f().slack());
    client.close();
    for (Worker<?> w : List.of(leaseWaiter, lockWaiter)) {
      assertThat(w.failure(f().slack())).isInstanceOf(LockException.class).hasMessageContaining(name);
    }
    // The failed waits left no queue entry behind to swallow the holder's release.
    f().assertReleaseWakesFreshWaiter(name, held::close);
  }

  @Test
  default void unknownUrlSchemeIsRejectedNamingTheScheme() {
    String scheme = "noscheme" + Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36)
        .toLowerCase(Locale.ROOT);
    assertRejected(() -> LockClient.connect(scheme + "://localhost/x"),
        IllegalArgumentException.class, "scheme", scheme);
  }
}
