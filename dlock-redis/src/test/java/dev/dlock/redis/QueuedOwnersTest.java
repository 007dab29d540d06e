package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.spi.LockKind;
import org.junit.jupiter.api.Test;

/**
 * A grant a release pushed is taken only if it was drawn after the owner's last refusal: a message
 * that came late (seed 73 of the queue simulation) carries a grant that has lapsed.
 */
class QueuedOwnersTest {
  private final QueuedOwners owners = new QueuedOwners();

  @Test
  void aGrantPushedAfterTheLastRefusalIsTakenWithItsTrysSendTime() {
    owners.waits("b", "n", LockKind.EXCLUSIVE, 1_000);
    owners.refused("b", 41);
    assertThat(owners.push("b", "n", 42)).isTrue();
    assertThat(owners.takePushed("b", "n")).isEqualTo(new QueuedOwners.Pushed(42, 1_000));
  }

  @Test
  void aGrantPushedBeforeTheLastRefusalIsStaleAndNotTaken() {
    owners.waits("b", "n", LockKind.EXCLUSIVE, 1_000);
    owners.refused("b", 41);
    owners.waits("b", "n", LockKind.EXCLUSIVE, 2_000); // the next try; the old push arrives while it is under way
    assertThat(owners.push("b", "n", 42)).isTrue();
    owners.refused("b", 57); // that try was refused after the push was drawn: the grant is gone
    assertThat(owners.takePushed("b", "n")).isNull();
  }

  /**
   * A try that got no answer (a timeout, a dropped connection) may never have reached the server,
   * so a grant pushed around it may have been drawn before its send: its validity cannot count from
   * that send, and the next try asks the server, which grants a standing push whole.
   */
  @Test
  void aGrantPushedAroundAnUnansweredTryIsNotTaken() {
    owners.waits("b", "n", LockKind.EXCLUSIVE, 1_000);
    assertThat(owners.push("b", "n", 42)).isTrue(); // drawn before the try was sent, as far as we know
    owners.unanswered("b");
    assertThat(owners.takePushed("b", "n")).isNull();
    assertThat(owners.push("b", "n", 43)).as("a push that arrives later").isTrue();
    assertThat(owners.takePushed("b", "n")).isNull();
  }

  @Test
  void aPushForAnotherNameOrAnOwnerNotWaitingIsNotTaken() {
    owners.waits("b", "n", LockKind.EXCLUSIVE, 1_000);
    assertThat(owners.push("b", "other", 42)).isFalse();
    assertThat(owners.push("c", "n", 42)).isFalse();
    assertThat(owners.takePushed("b", "n")).isNull();
  }
}
