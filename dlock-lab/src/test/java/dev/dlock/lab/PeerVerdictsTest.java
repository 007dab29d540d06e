package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The peer libraries under the articles' fault, a holder paused (SIGSTOP) for two leases right
 * before its write, on real servers, with the checker's verdict asserted: what a user choosing
 * between them should know. A verdict that changes is a finding about the peer or the lab.
 */
class PeerVerdictsTest {
  /** As ExpectedVerdictsTest: the quick matrix's shape with a shorter run and an earlier fault. */
  private static final LabSettings SETTINGS = new LabSettings(3, Duration.ofSeconds(3), Duration.ofSeconds(1),
      Duration.ofMillis(40), Duration.ofSeconds(1), Duration.ofMillis(500), 100);

  private static Lab lab;

  @BeforeAll
  static void open() throws Exception {
    Path dir = Files.createTempDirectory("lab-peers");
    lab = new Lab(SETTINGS, Map.of(), dir, new PrintWriter(System.out, true));
  }

  @AfterAll
  static void close() {
    if (lab != null) {
      lab.close();
    }
  }

  private static CellResult pausedHolder(String scheme) throws Exception {
    int failed = lab.failures().size();
    List<CellResult> results = lab.run(List.of(new CellSpec(scheme, "F2", "critical")), 1);
    assertThat(lab.failures().subList(failed, lab.failures().size())).as("runs that could not run").isEmpty();
    assertThat(results).hasSize(1);
    return results.get(0);
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
