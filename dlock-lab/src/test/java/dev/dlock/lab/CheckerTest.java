package dev.dlock.lab;

import static dev.dlock.lab.Histories.MS;
import static dev.dlock.lab.Histories.info;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckerTest {

  @Test
  void sequentialHoldsAreSafe() {
    CellResult r = new Histories().hold("w1", 0, 10, -1).hold("w2", 11, 20, -1).check(info("S7", "none", 100));
    assertThat(r.violations()).isZero();
    assertThat(r.overlapNanos()).isZero();
    assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
    assertThat(r.recoveryNanos()).isEqualTo(-1);
  }

  @Test
  void unfencedOverlapIsUnsafe() {
    CellResult r = new Histories().hold("w1", 0, 10, -1).hold("w2", 5, 12, -1).check(info("S7", "F2", 100));
    assertThat(r.violations()).isEqualTo(1);
    assertThat(r.overlapNanos()).isEqualTo(Math.round(4.9 * MS));
    assertThat(r.verdict()).isEqualTo(Verdict.UNSAFE);
  }

  @Test
  void overlapIsTheUnionNotTheSum() {
    // w1 [0.1,10], w2 [2.1,8], w3 [4.1,12]: three pairs, covering [2.1,10]
    CellResult r = new Histories().hold("w1", 0, 10, -1).hold("w2", 2, 8, -1).hold("w3", 4, 12, -1)
        .check(info("S6", "F2", 100));
    assertThat(r.violations()).isEqualTo(3);
    assertThat(r.overlapNanos()).isEqualTo(Math.round(7.9 * MS));
  }

  @Test
  void fencedOverlapIsSafeWhileTheResourceRejectsTheLateWrite() {
    CellResult r = new Histories().hold("w1", 0, 10, 1).hold("w2", 5, 12, 2)
        .write("w2", 6, 2, true).write("w1", 7, 1, false).check(info("S8", "F2", 100));
    assertThat(r.violations()).isEqualTo(1);
    assertThat(r.staleRejected()).isEqualTo(1);
    assertThat(r.staleAccepted()).isZero();
    assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
  }

  @Test
  void staleWriteAcceptedIsUnsafe() {
    CellResult r = new Histories().hold("w1", 0, 10, 1).hold("w2", 5, 12, 2)
        .write("w1", 7, 1, true).check(info("S8", "F2", 100));
    assertThat(r.staleAccepted()).isEqualTo(1);
    assertThat(r.verdict()).isEqualTo(Verdict.UNSAFE);
  }

  @Test
  void writesAfterTheWritersOwnLatestGrantAreNotStale() {
    CellResult r = new Histories().hold("w2", 0, 3, 1).hold("w1", 5, 10, 2)
        .write("w1", 7, 2, true).write("w1", 8, 2, false).check(info("S8", "none", 100));
    assertThat(r.staleAccepted()).isZero();
    assertThat(r.staleRejected()).isZero(); // a fail that is not stale counts in neither
  }

  @Test
  void readHoldsShareButAWriteHoldDoesNot() {
    Histories h = new Histories();
    h.acquire("w1", 0, 1).enterShared("w1", 0.5).exit("w1", 10);
    h.acquire("w2", 1, 2).enterShared("w2", 1.5).exit("w2", 9);
    assertThat(h.check(info("S13", "none", 100)).violations()).isZero();
    h.acquire("w3", 2, 3).enter("w3", 3).exit("w3", 4);
    CellResult r = h.check(info("S13", "none", 100));
    assertThat(r.violations()).isEqualTo(2);
    assertThat(r.overlapNanos()).isEqualTo(1 * MS);
  }

  @Test
  void aKilledHolderHoldsUntilItsKill() {
    Histories h = new Histories();
    h.acquire("w1", 0, -1).enter("w1", 1).write("w1", 3, -1, true);
    h.add("injector", "fault", "invoke", -1, 5, "F1 w1").add("injector", "fault", "ok", -1, 5, "F1 w1");
    h.acquire("w2", 4, -1).enter("w2", 4).exit("w2", 8);
    CellResult r = h.check(info("S7", "F1", 100));
    assertThat(r.violations()).isEqualTo(1);
    assertThat(r.overlapNanos()).isEqualTo(1 * MS);
    assertThat(r.recoveryNanos()).isEqualTo(-1); // no grant at or after the kill
    assertThat(r.deadlock()).isTrue();
  }

  @Test
  void anUnclosedHolderWithoutAKillHoldsUntilItsLastEvent() {
    Histories h = new Histories();
    h.acquire("w1", 0, -1).enter("w1", 1).write("w1", 3, -1, true);
    h.acquire("w2", 4, -1).enter("w2", 4).exit("w2", 8);
    assertThat(h.check(info("S7", "none", 100)).violations()).isZero();
    h.add("w1", "wake", "info", -1, 6, "");
    assertThat(h.check(info("S7", "none", 100)).overlapNanos()).isEqualTo(2 * MS);
  }

  @Test
  void flashCountsOversoldAndLostSales() {
    Histories h = new Histories();
    for (int i = 0; i < 7; i++) {
      h.buy("w" + (i % 3 + 1), i);
    }
    RunInfo lost = new RunInfo("S2-h2", "none", "flash", 1, Histories.BASE, Histories.at(100), MS, 10, 5);
    CellResult r = h.check(lost);
    assertThat(r.oversold()).isZero();
    assertThat(r.lostUpdates()).isEqualTo(2);
    assertThat(r.verdict()).isEqualTo(Verdict.UNSAFE);
    RunInfo over = new RunInfo("S2-h2", "none", "flash", 1, Histories.BASE, Histories.at(100), MS, 5, 0);
    CellResult o = h.check(over);
    assertThat(o.oversold()).isEqualTo(2);
    assertThat(o.lostUpdates()).isEqualTo(2);
    RunInfo exact = new RunInfo("S2-h2", "none", "flash", 1, Histories.BASE, Histories.at(100), MS, 10, 3);
    assertThat(h.check(exact).verdict()).isEqualTo(Verdict.SAFE);
  }

  @Test
  void releasesThatFreeAnotherWorkersLockAreForeign() {
    CellResult r = new Histories().hold("w1", 0, 10, -1).release("w1", 20, "w2").release("w1", 21, "")
        .release("w2", 22, "w2").check(info("S7", "F2", 100));
    assertThat(r.foreignReleases()).isEqualTo(1);
    assertThat(r.releases()).isEqualTo(4);
    assertThat(r.verdict()).isEqualTo(Verdict.UNSAFE);
  }

  @Test
  void recoveryIsTheLongestWaitForAGrantAfterAFault() {
    CellResult r = new Histories().hold("w1", 0, 5, 1).fault(10, 20, "F3 server").hold("w2", 35, 40, 2)
        .fault(50, 52, "F3 server").hold("w1", 54, 56, 3).check(info("S8", "F3", 100));
    assertThat(r.recoveryNanos()).isEqualTo(15 * MS);
    assertThat(r.deadlock()).isFalse();
    assertThat(r.verdict()).isEqualTo(Verdict.SAFE);
  }

  @Test
  void noGrantAfterAFaultIsADeadlock() {
    Histories h = new Histories().hold("w1", 0, 5, -1).fault(10, 20, "F1-gap w1");
    CellResult r = h.check(info("S4", "F1-gap", 100));
    assertThat(r.deadlock()).isTrue();
    assertThat(r.verdict()).isEqualTo(Verdict.STUCK);
    h.hold("w2", 150, 160, -1); // a grant only after the run ended still counts as never
    assertThat(h.check(info("S4", "F1-gap", 100)).deadlock()).isTrue();
    assertThat(h.check(info("S4", "F1-gap", 200)).deadlock()).isFalse();
  }

  @Test
  void stuckOutranksUnsafe() {
    CellResult r = new Histories().hold("w1", 0, 5, -1).release("w1", 6, "w3").fault(10, 20, "F1 w1")
        .check(info("S6", "F1", 100));
    assertThat(r.foreignReleases()).isEqualTo(1);
    assertThat(r.verdict()).isEqualTo(Verdict.STUCK);
  }

  @Test
  void countsGrantsReleasesAndWakeups() {
    Histories h = new Histories().hold("w1", 0, 1, 1).hold("w2", 2, 3, 2).hold("w3", 4, 5, 3).hold("w1", 6, 7, 4);
    CellResult quiet = h.check(new RunInfo("S11", "none", "critical", 1, Histories.BASE, Histories.at(2000), MS, -1, -1));
    assertThat(quiet.grants()).isEqualTo(4);
    assertThat(quiet.releases()).isEqualTo(4);
    assertThat(quiet.grantsPerSecond()).isEqualTo(2.0);
    assertThat(quiet.wakeupsPerRelease()).isNaN();
    for (int i = 0; i < 6; i++) {
      h.wake("w2", 1 + i * 0.1);
    }
    assertThat(h.check(info("S11", "none", 100)).wakeupsPerRelease()).isEqualTo(1.5);
  }

  @Test
  void theOrderOfTheEventsDoesNotMatter() {
    Histories h = new Histories().hold("w1", 0, 10, 1).hold("w2", 5, 12, 2).write("w1", 7, 1, true)
        .fault(3, 4, "F2 w1");
    CellResult sorted = h.check(info("S8", "F2", 100));
    List<Event> shuffled = new ArrayList<>(h.events());
    Collections.shuffle(shuffled, new Random(4));
    CellResult r = Checker.check(info("S8", "F2", 100), shuffled);
    assertThat(r).isEqualTo(sorted);
    assertThat(r.events()).isSortedAccordingTo((a, b) -> Long.compare(a.nanos(), b.nanos()));
  }

  @Test
  void aTornLastLineIsSkippedButATornMiddleLineIsAnError(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("w1.jsonl");
    try (History h = History.append(file, "w1")) {
      h.log("acquire", "ok", "L", 3, "");
      h.log("enter", "ok", "L", -1, "");
    }
    Files.writeString(file, "{\"process\":\"w1\",\"op\":\"ex", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    List<Event> events = History.read(file);
    assertThat(events).extracting(Event::op).containsExactly("acquire", "enter");
    assertThat(Checker.check(info("S8", "F1", 100), events).grants()).isEqualTo(1);
    Files.writeString(file, "\n{\"process\":\"w1\",\"op\":\"exit\",\"type\":\"ok\",\"lock\":\"L\",\"token\":-1,"
        + "\"nanos\":5,\"info\":\"\"}\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    assertThatThrownBy(() -> History.read(file)).hasMessageContaining("line 3");
  }

  @Test
  void aCellSumsItsRunsAndTakesTheWorstVerdict() {
    CellResult safe = new Histories().hold("w1", 0, 5, -1).fault(6, 7, "F1 w1").hold("w2", 9, 10, -1)
        .check(info("S7", "F1", 100));
    CellResult stuck = new Histories().hold("w1", 0, 5, -1).fault(6, 7, "F1 w1").check(info("S7", "F1", 100));
    CellResult unsafe = new Histories().hold("w1", 0, 10, -1).hold("w2", 5, 12, -1).check(info("S7", "F2", 100));
    CellResult other = new Histories().hold("w1", 0, 10, 1).check(info("S8", "F1", 100));
    List<Cell> cells = Cell.group(List.of(safe, unsafe, other, stuck, unsafe));
    assertThat(cells).extracting(c -> c.scheme() + "/" + c.fault()).containsExactly("S7/F1", "S7/F2", "S8/F1");
    Cell f1 = cells.get(0);
    assertThat(f1.runs()).containsExactly(safe, stuck);
    assertThat(f1.verdict()).isEqualTo(Verdict.STUCK);
    assertThat(f1.deadlock()).isTrue();
    assertThat(f1.recoveryNanos()).isEqualTo(2 * MS);
    assertThat(f1.grants()).isEqualTo(3);
    Cell f2 = cells.get(1);
    assertThat(f2.violations()).isEqualTo(2);
    assertThat(f2.overlapNanos()).isEqualTo(2 * unsafe.overlapNanos());
    assertThat(new Cell("S7", "F1", List.of(stuck, safe)).verdict()).isEqualTo(Verdict.STUCK);
    assertThat(Verdict.STUCK.worst(Verdict.UNSAFE)).isEqualTo(Verdict.UNSAFE);
    assertThat(Verdict.UNSAFE.worst(Verdict.STUCK)).isEqualTo(Verdict.UNSAFE);
    assertThatThrownBy(() -> new Cell("S8", "F2", List.of(other))).hasMessageContaining("S8 x F1");
  }

  @Test
  void claimsNameEverySchemeAndRejectUnknownIds() {
    for (String id : List.of("none", "S1-h2", "S1-pg", "S3-pg", "S2-h2", "S8", "S10", "S12", "S13", "S4", "S5",
        "S6", "S7", "S8-wrong", "S11", "S13-naive")) {
      assertThat(Claims.claim(id)).isNotBlank();
      assertThat(Claims.title(id)).isNotBlank();
    }
    assertThat(Claims.claim("S4")).contains("waits forever");
    assertThat(Claims.claim("S12")).contains("never go backwards");
    assertThatThrownBy(() -> Claims.claim("S99")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("S99");
  }

  @Test
  void aLossNoticeIsLateWhenAnotherWorkerWasGrantedSinceTheToldHoldersGrant() {
    List<Event> inTime = List.of(
        new Event("w1", "acquire", "ok", "l", 1, 10, ""),
        new Event("w1", "lost", "info", "l", 1, 20, ""),
        new Event("w1", "exit", "ok", "l", 1, 21, "lost"),
        new Event("w2", "acquire", "ok", "l", 2, 30, ""));
    assertThat(Checker.lossNotices(inTime)).isEqualTo(new Checker.LossNotices(1, 0));
    List<Event> late = List.of(
        new Event("w1", "acquire", "ok", "l", 1, 10, ""),
        new Event("w2", "acquire", "ok", "l", 2, 15, ""),
        new Event("w1", "exit", "ok", "l", 1, 21, "lost"));
    assertThat(Checker.lossNotices(late)).isEqualTo(new Checker.LossNotices(1, 1));
  }
}
