package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The guide (docs/choosing-a-lock.md) is kept true: every cell cites the lab line, bench row, code,
 * document or vendor page that shows it, and each claim must agree with what it cites. Reads files
 * only; no server is started.
 */
class GuideTest {
  /** Rows the guide has before the lab runs them: the Sentinel, ensemble and peer rows. */
  static final List<String> PROMISED = List.of("s14", "s14-wait", "s12-ens", "redisson", "redisson-fenced",
      "curator", "shedlock-jdbc", "spring-jdbc", "spring-redis");

  private static final Path ROOT = Recorded.root();

  /** The anchors the guide must have: a row per scheme of the full plan, and the promised ones. */
  static Set<String> rows() {
    Set<String> rows = new LinkedHashSet<>();
    Plan.full().forEach(c -> rows.add(HtmlReport.guideAnchor(c.scheme())));
    rows.addAll(PROMISED);
    return rows;
  }

  @Test
  void theGuideAgreesWithTheLabRecordTheBenchAndTheFilesItCites() throws Exception {
    String guide = Files.readString(ROOT.resolve("docs/choosing-a-lock.md"));
    GuideCheck check = new GuideCheck(ROOT, Recorded.record(), Files.readString(ROOT.resolve("dlock-bench/README.md")));
    assertThat(check.problems(guide, rows())).as("problems in docs/choosing-a-lock.md").isEmpty();
  }

  @Test
  void everyRowOfTheLabRecordIsARowOfTheGuide() {
    for (RecordedCell c : Recorded.record().cells()) {
      assertThat(rows()).as("the guide's rows").contains(HtmlReport.guideAnchor(c.row()));
    }
  }

  // The failures the check must catch, each on a small guide of its own.

  private static final String RECORD = String.join("\n",
      "# test",
      String.join("\t", RecordedCell.COLUMNS),
      "S7\tF2\t1\tunsafe\t88\t33\t0\t0\t0\t65\tfalse\t26.7\t22.3\t-\tfalse",
      "S8\tF2\t1\tsafe\t24\t0\t1\t0\t0\t0\tfalse\t40.8\t16.3\t0.98\ttrue",
      "S8\tF1\t1\tsafe\t0\t0\t0\t0\t0\t0\tfalse\t969.6\t14.9\t0.98\ttrue",
      "S4\tF1-gap\t1\tstuck\t0\t0\t0\t0\t0\t0\ttrue\t-\t2.7\t-\tfalse", "");

  private static final String BENCH = String.join("\n",
      "| name | what |", "|---|---|", "| `dlock-sentinel` | x |", "| `dlock-redis` | y |", "",
      "| workload | target | threads | ops/s | p50 | p99 | ops/s vs x |",
      "|---|---|---:|---:|---:|---:|---:|",
      "| W1 | dlock-sentinel | 1 | 7,575 | 98.2 us | 227.6 us | 7.8x |",
      "| W4 | dlock-sentinel | 2 | 2,955 | 149.3 us | 353.1 us | 8.2x |", "");

  private static String guide(String s8Promise, String s8Shown) {
    return String.join("\n",
        "| lock | reentrant | blocking | fair | owner-only release | renewal | fencing token | loss signal |",
        "|---|---|---|---|---|---|---|---|",
        "| <a id=\"s8\"></a>S8 | " + s8Promise + " | [yes](../README.md#usage) | [yes](../README.md) "
            + "| [yes](../README.md) | [yes](../README.md) | [yes](lab-matrix.tsv \"S8 × F2\") | [yes](../README.md) |",
        "",
        "| lock | mutual exclusion | no deadlock | available | tolerated faults | fast: W1 lock+unlock | handoff: W4 p50 |",
        "|---|---|---|---|---|---|---|",
        "| <a id=\"s8\"></a>S8 | " + s8Shown + " | [✓ F1](lab-matrix.tsv \"S8 × F1\") "
            + "| [back within 2 s](lab-matrix.tsv \"S8 × F1\") | [F1](lab-matrix.tsv \"S8 × F1\") "
            + "[F2](lab-matrix.tsv \"S8 × F2\") | [7,575 ops/s](../dlock-bench/README.md \"W1 dlock-sentinel\") "
            + "| [149.3 us p50](../dlock-bench/README.md \"W4 dlock-sentinel\") |",
        "");
  }

  private static final String GOOD_PROMISE = "[yes](../dlock-testkit/src/main/java/dev/dlock/testkit/BasicCases.java"
      + " \"lockViewIsReentrantAndHoldsUntilTheLastUnlock\")";
  private static final String GOOD_SHOWN = "[✓ F2](lab-matrix.tsv \"S8 × F2\"), [refused the late write](lab-matrix.tsv \"S8 × F2\")";

  private static List<String> problems(String guide) {
    return new GuideCheck(ROOT, LabRecord.parse(RECORD, "test record"), BENCH).problems(guide, List.of("s8"));
  }

  @Test
  void aSmallGoodGuidePasses() {
    assertThat(problems(guide(GOOD_PROMISE, GOOD_SHOWN))).isEmpty();
  }

  @Test
  void aLabCitationOfACellNotRecordedFails() {
    assertThat(problems(guide(GOOD_PROMISE, "[✓ F4](lab-matrix.tsv \"S8 × F4\")")))
        .singleElement().asString().contains("row s8, column 'mutual exclusion'").contains("S8 × F4 is not in docs/lab-matrix.tsv");
    assertThat(problems(guide(GOOD_PROMISE, "[✓ F4 (expected)](lab-matrix.tsv \"S8 × F4\")"))).isEmpty();
    assertThat(problems(guide(GOOD_PROMISE, "[✓ F2 (expected)](lab-matrix.tsv \"S8 × F2\")")))
        .singleElement().asString().contains("S8 × F2 is recorded now (safe): drop '(expected)'");
  }

  @Test
  void aClaimTheRecordDoesNotBearOutFails() {
    assertThat(problems(guide(GOOD_PROMISE, "[✗ F2](lab-matrix.tsv \"S8 × F2\")")))
        .singleElement().asString().contains("S8 × F2 records safe").contains("does not bear out '✗ F2'");
    assertThat(problems(guide(GOOD_PROMISE, "[unsafe](lab-matrix.tsv \"S8 × F2\")")))
        .singleElement().asString().contains("does not bear out 'unsafe'");
    assertThat(problems(guide(GOOD_PROMISE, "[took a late write](lab-matrix.tsv \"S8 × F2\")"))).hasSize(1);
    assertThat(problems(guide(GOOD_PROMISE, "[✓ F1](lab-matrix.tsv \"S8 × F2\")")))
        .singleElement().asString().contains("the claim names F1, the citation F2");
    assertThat(problems(guide(GOOD_PROMISE, "[probably fine](lab-matrix.tsv \"S8 × F2\")")))
        .singleElement().asString().contains("is not a lab claim");
    assertThat(problems(guide(GOOD_PROMISE, "safe [✓ F2](lab-matrix.tsv \"S8 × F2\")")))
        .singleElement().asString().contains("'safe' outside a citation");
  }

  @Test
  void aBenchCitationOfARowNotInTheReadmeFails() {
    String shown = guide(GOOD_PROMISE, GOOD_SHOWN);
    assertThat(problems(shown.replace("[7,575 ops/s](../dlock-bench/README.md \"W1 dlock-sentinel\")",
        "[9,000 ops/s](../dlock-bench/README.md \"W1 dlock-redis\")")))
        .singleElement().asString().contains("has no result row W1 dlock-redis");
    assertThat(problems(shown.replace("[7,575 ops/s](../dlock-bench/README.md \"W1 dlock-sentinel\")",
        "[not measured](../dlock-bench/README.md \"W1 dlock-redis\")"))).isEmpty();
    assertThat(problems(shown.replace("[7,575 ops/s]", "[7,000 ops/s]")))
        .singleElement().asString().contains("has 7,575 ops/s, not 7,000");
    assertThat(problems(shown.replace("\"W1 dlock-sentinel\"", "\"W1 dlock-nowhere\"")))
        .singleElement().asString().contains("names no target `dlock-nowhere`");
  }

  @Test
  void aPlanRowWithoutAGuideRowFails() {
    List<String> problems = new GuideCheck(ROOT, LabRecord.parse(RECORD, "test record"), BENCH)
        .problems(guide(GOOD_PROMISE, GOOD_SHOWN), List.of("s8", "s7"));
    assertThat(problems).hasSize(2).allMatch(p -> p.contains("no row for 's7'"));
  }

  @Test
  void codeDocAndVendorCitationsMustExist() {
    assertThat(problems(guide("[yes](../dlock-testkit/src/main/java/dev/dlock/testkit/BasicCases.java \"noSuchCase\")",
        GOOD_SHOWN))).singleElement().asString().contains("BasicCases.java declares no method or class 'noSuchCase'");
    assertThat(problems(guide("[yes](../README.md#no-such-heading)", GOOD_SHOWN)))
        .singleElement().asString().contains("README.md has no heading or anchor 'no-such-heading'");
    assertThat(problems(guide("[yes](../NOPE.md)", GOOD_SHOWN))).singleElement().asString().contains("no file");
    assertThat(problems(guide("[yes](https://example.com/locks)", GOOD_SHOWN)))
        .singleElement().asString().contains("not under the vendors' documentation");
    assertThat(problems(guide("[yes](https://redisson.pro/docs/data-and-services/locks-and-synchronizers/)", GOOD_SHOWN)))
        .isEmpty();
    assertThat(problems(guide("yes", GOOD_SHOWN))).singleElement().asString().contains("cites nothing");
  }

  @Test
  void headingsBecomeGitHubAnchors() {
    assertThat(GuideCheck.slug("Replicated Redis: `redis-ha`")).isEqualTo("replicated-redis-redis-ha");
    assertThat(GuideCheck.anchors("## The lab\ntext <a id=\"s8\"></a>\n")).containsExactly("the-lab", "s8");
  }
}
