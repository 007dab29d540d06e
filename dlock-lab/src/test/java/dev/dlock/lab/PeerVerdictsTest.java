package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The peer libraries under the articles' fault, a holder paused (SIGSTOP) for two leases right
 * before its write, on real servers, with the checker's verdict asserted: what a user choosing
 * between them should know. A verdict that changes is a finding about the peer or the lab.
 */
class PeerVerdictsTest {
  @RegisterExtension
  static final LabCells lab = new LabCells("lab-peers");

  private static CellResult pausedHolder(String scheme) throws Exception {
    return lab.run(scheme, "F2");
  }

  /** Two holders, and nothing to stop the paused one's write: the resource takes it. */
  private static void assertTwoHoldersAndTheStaleWriteTaken(CellResult r) {
    assertThat(r.fenced()).as("grants with a token").isFalse();
    assertThat(r.violations()).as("two holders: the paused one could not know").isPositive();
    assertThat(r.staleAccepted()).as("the paused holder's late write, taken").isPositive();
    assertThat(r.foreignReleases()).as("releases that freed another worker's lock").isZero();
    assertThat(r.deadlock()).isFalse();
    assertThat(r.verdict()).isEqualTo(Verdict.UNSAFE);
  }

  @Test
  void redissonGivesTwoHoldersWhenItsHolderPausesPastTheWatchdog() throws Exception {
    assertTwoHoldersAndTheStaleWriteTaken(pausedHolder("redisson"));
  }

  @Test
  void redissonsFencedLockGivesTwoHoldersButItsTokenRejectsTheStaleWrite() throws Exception {
    CellResult r = pausedHolder("redisson-fenced");
    assertThat(r.fenced()).as("grants with a token").isTrue();
    assertThat(r.violations()).as("two holders: the paused one could not know").isPositive();
    assertThat(r.staleAccepted()).as("stale writes the fenced resource accepted").isZero();
    assertThat(r.staleRejected()).as("the paused holder's late write, refused for its token").isPositive();
    assertThat(r.foreignReleases()).isZero();
    assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
  }

  @Test
  void curatorGivesTwoHoldersWhenItsHolderPausesPastItsSession() throws Exception {
    assertTwoHoldersAndTheStaleWriteTaken(pausedHolder("curator"));
  }

  @Test
  void shedLockGivesTwoHoldersWhenItsHolderPausesPastLockAtMostFor() throws Exception {
    assertTwoHoldersAndTheStaleWriteTaken(pausedHolder("shedlock-jdbc"));
  }

  @Test
  void springJdbcGivesTwoHoldersWhenItsHolderPausesPastItsTimeToLive() throws Exception {
    assertTwoHoldersAndTheStaleWriteTaken(pausedHolder("spring-jdbc"));
  }

  @Test
  void springRedisGivesTwoHoldersWhenItsHolderPausesPastItsExpiry() throws Exception {
    assertTwoHoldersAndTheStaleWriteTaken(pausedHolder("spring-redis"));
  }
}
