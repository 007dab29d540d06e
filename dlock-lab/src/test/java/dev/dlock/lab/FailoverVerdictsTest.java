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
 * Fault F4, failover before replication, on a real master, replica and three Sentinels: dlock's
 * Redis lock on the Sentinel URL without and with {@code waitReplicas=1}, each run as a lab cell
 * with the checker's verdict asserted. One Sentinel set serves both cells: F4 leaves it whole.
 *
 * <p>What the runs show, with the lab's 1 s lease: without WAIT the master grants the lock after
 * the cut, a grant the replica never receives; yet nobody holds it twice, because Sentinel needs
 * longer to promote the replica (down-after 2 s, then an election) than the lease lasts, so the
 * holder of the lost grant is past its lease before the promoted replica grants again, and the
 * tokens keep rising across the failover. With WAIT the master grants nothing it cannot replicate:
 * every acquire during the cut fails with an error. A lease that outlasts the failover (8 s) can
 * give two holders without WAIT, in some runs; such runs are too long for the build.
 */
class FailoverVerdictsTest {
  /** As ExpectedVerdictsTest's: the quick matrix's shape, shorter runs, an earlier fault. */
  private static final LabSettings SETTINGS = new LabSettings(3, Duration.ofSeconds(3), Duration.ofSeconds(1),
      Duration.ofMillis(40), Duration.ofSeconds(1), Duration.ofMillis(500), 100);

  private static Lab lab;

  @BeforeAll
  static void open() throws Exception {
    Path dir = Files.createTempDirectory("lab-failover");
    lab = new Lab(SETTINGS, Map.of(), dir, new PrintWriter(System.out, true));
  }

  @AfterAll
  static void close() {
    if (lab != null) {
      lab.close();
    }
  }

  @Test
  void withoutWaitTheMasterGrantsWhatTheReplicaNeverGetsButTheLeaseEndsBeforeThePromotion() throws Exception {
    CellResult r = run("S14");
    Moments m = new Moments(r.events());
    List<Event> lost = m.between("acquire", "ok", m.cut, m.kill);
    assertThat(lost).as("grants the master made after the cut, which the replica never received").isNotEmpty();
    long before = m.highestTokenBefore(m.kill);
    long after = m.firstAfter("acquire", "ok", m.kill).token();
    assertThat(after).as("the first token the promoted replica granted (%d) against the highest before the"
        + " failover (%d, the lost grant's): tokens did not go backwards", after, before).isGreaterThan(before);
    assertThat(r.violations()).as("two holders at once: the failover took %d ms after the kill, longer than"
        + " the %d ms lease of the lost grant", (m.promoted - m.kill) / 1_000_000, SETTINGS.lease().toMillis())
        .isZero();
    assertThat(r.staleAccepted()).as("stale writes the fenced resource accepted").isZero();
    assertThat(r.deadlock()).as("no grant after the failover").isFalse();
    assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
  }

  @Test
  void withWaitTheMasterGrantsNothingItCannotReplicateAndTheAcquireFails() throws Exception {
    CellResult r = run("S14-wait");
    Moments m = new Moments(r.events());
    assertThat(m.between("acquire", "ok", m.cut, m.kill)).as("grants between the cut and the kill").isEmpty();
    List<Event> refused = m.between("acquire", "fail", m.cut, m.kill).stream()
        .filter(e -> !e.info().equals("timeout")).toList();
    // "fewer than 1 replica(s) acknowledged the grant", or "no reply within ..." when a WAIT outlasts
    // the caller's deadline (Redis answers a timed-out WAIT on its next 100 ms tick, and a blocked
    // WAIT holds up the connection's next command): the master is up all along either way.
    assertThat(refused).as("acquires that failed with an error during the cut").isNotEmpty();
    assertThat(r.violations()).as("two holders at once").isZero();
    assertThat(r.staleAccepted()).as("stale writes the fenced resource accepted").isZero();
    assertThat(r.deadlock()).as("no grant once the old master was back as a replica").isFalse();
    assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
  }

  private static CellResult run(String scheme) throws Exception {
    int failed = lab.failures().size();
    List<CellResult> results = lab.run(List.of(new CellSpec(scheme, "F4", "critical")), 1);
    assertThat(lab.failures().subList(failed, lab.failures().size())).as("runs that could not run").isEmpty();
    assertThat(results).hasSize(1);
    return results.get(0);
  }

  /** The injector's moments of one F4 run, and the workers' events between them. */
  private static final class Moments {
    private final List<Event> events;
    private final long cut;
    private final long kill;
    private final long promoted;

    Moments(List<Event> events) {
      this.events = Checker.sorted(events);
      this.cut = injector("invoke", "F4 server");
      this.kill = injector("info", "F4 kill master");
      this.promoted = injector("ok", "F4 server");
    }

    private long injector(String type, String info) {
      return events.stream().filter(e -> e.process().equals("injector") && e.type().equals(type)
          && e.info().equals(info)).findFirst().orElseThrow(() -> new AssertionError("no injector event "
              + type + " '" + info + "' in " + events.stream().filter(e -> e.process().equals("injector")).toList()))
          .nanos();
    }

    List<Event> between(String op, String type, long from, long to) {
      return events.stream().filter(e -> e.op().equals(op) && e.type().equals(type) && e.nanos() > from
          && e.nanos() < to).toList();
    }

    Event firstAfter(String op, String type, long from) {
      return events.stream().filter(e -> e.op().equals(op) && e.type().equals(type) && e.nanos() > from)
          .findFirst().orElseThrow(() -> new AssertionError("no " + op + " " + type + " after the kill"));
    }

    long highestTokenBefore(long to) {
      return events.stream().filter(e -> e.op().equals("acquire") && e.type().equals("ok") && e.nanos() < to)
          .mapToLong(Event::token).max().orElseThrow(() -> new AssertionError("no grant before the kill"));
    }
  }
}
