package dev.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Cases for a backend whose server can forget a lock: a restart without persistence, a failover
 * that beat replication, a deleted row. Fencing tokens must still never go backwards: the next
 * grant's token is greater than every token handed out before, and a holder whose grant the
 * server forgot learns that it lost it. A backend's test class implements this interface beside
 * its conformance suite and says, in {@link #forget}, how its server forgets.
 */
public interface StateLossCases extends SuiteCase {

  /**
   * Makes the server forget lock {@code name} entirely, its token counter included, as a restart
   * without persistence would.
   *
   * @param name the lock to forget
   * @throws Exception if the server could not be made to forget
   */
  void forget(String name) throws Exception;

  @Test
  default void tokensKeepRisingAfterTheServerForgetsAFreeLock() throws Exception {
    String name = f().name();
    LockClient a = f().client();
    long highest = 0;
    for (int i = 0; i < 3; i++) {
      try (Lease lease = take(a.lock(name))) {
        highest = Math.max(highest, lease.token());
      }
    }
    forget(name);
    try (Lease next = take(f().client().lock(name), "it was released before the server forgot it")) {
      assertThat(next.token()).as("the first token after the server forgot the lock").isGreaterThan(highest);
    }
  }

  @Test
  default void aForgottenHolderIsToldAndTheNextHolderGetsAHigherToken() throws Exception {
    String name = f().name();
    Lease first = take(f().client(b -> b.leaseTime(f().lease())).lock(name));
    forget(name);
    Lease second = take(f().client().lock(name), "the server forgot the first grant");
    assertThat(second.token()).as("the token granted after the server forgot a holder")
        .isGreaterThan(first.token());
    LeaseLostException reason = first.lost().toCompletableFuture()
        .get(f().lease().plus(f().slack()).toMillis(), TimeUnit.MILLISECONDS);
    assertThat(reason).as("the forgotten holder's loss").hasMessageContaining(name);
    assertThat(first.isValid()).isFalse();
    assertThat(second.isValid()).isTrue();
    second.close();
  }
}
