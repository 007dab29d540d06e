package dev.dlock.lab;

import static dev.dlock.lab.Histories.info;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.select.Elements;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HtmlReportTest {
  private final List<Cell> cells = TerminalReportTest.cells();
  private final Document doc = Jsoup.parse(HtmlReport.render(cells, "Lab <run> & \"x\"", "made by <the lab>"));

  @Test
  void theMatrixHasARowPerSchemeAndAColumnPerFault() {
    Element matrix = doc.getElementById("matrix");
    assertThat(matrix).isNotNull();
    // Faults in the matrix's fixed order, not the order the runs came in.
    assertThat(matrix.select("thead th").eachText()).containsExactly("scheme", "F1", "F1-gap", "F2");
    Elements rows = matrix.select("tbody tr");
    assertThat(rows).hasSize(3);
    assertThat(rows.get(0).select("td").eachAttr("class")).containsExactly("none", "none", "unsafe");
    assertThat(rows.get(1).select("td").eachAttr("class")).containsExactly("safe", "none", "safe");
    assertThat(rows.get(2).select("td").eachAttr("class")).containsExactly("none", "stuck", "none");
    assertThat(rows.get(0).select("td").get(2).selectFirst("a:not(.guide)").text()).isEqualTo("unsafe v=3");
    for (Element link : matrix.select("td a:not(.guide)")) {
      String id = link.attr("href").substring(1);
      assertThat(doc.getElementById(id)).as(id).isNotNull();
    }
    assertThat(rows.get(2).selectFirst("td.stuck a").attr("href")).isEqualTo("#cell-S4-F1-gap");
  }

  @Test
  void eachCellLinksToItsSchemesRowInTheGuide() {
    Elements rows = doc.select("#matrix tbody tr");
    assertThat(rows.get(0).select("td a.guide").eachAttr("href")).containsExactly("docs/choosing-a-lock.md#s7");
    assertThat(rows.get(1).select("td a.guide").eachAttr("href"))
        .containsExactly("docs/choosing-a-lock.md#s8", "docs/choosing-a-lock.md#s8");
    assertThat(rows.get(2).select("td a.guide").eachAttr("href")).containsExactly("docs/choosing-a-lock.md#s4");
    assertThat(doc.select("#matrix td.none a")).as("a cell not run links nowhere").isEmpty();
    assertThat(doc.select("#matrix td:not(.none)")).allMatch(td -> td.select("a.guide").size() == 1);

    Document elsewhere = Jsoup.parse(HtmlReport.render(cells, "t", "f", "../guide.md"));
    assertThat(elsewhere.select("#matrix a.guide").eachAttr("href")).first().isEqualTo("../guide.md#s7");
    assertThat(elsewhere.selectFirst("#matrix a.guide").attr("title")).isEqualTo("S7 in the guide");
  }

  @Test
  void aRowsGuideAnchorIsItsSchemeIdInLowerCase() {
    assertThat(HtmlReport.guideAnchor("S8-wrong")).isEqualTo("s8-wrong");
    assertThat(HtmlReport.guideAnchor("none (flash)")).isEqualTo("none");
    assertThat(HtmlReport.guideAnchor("S13 (readwrite)")).isEqualTo("s13");
    assertThat(HtmlReport.guideAnchor("redisson-fenced")).isEqualTo("redisson-fenced");
  }

  @Test
  void eachCellsNumbersAreItsResults() {
    for (Cell cell : cells) {
      CellResult r = cell.runs().get(0);
      Element dl = doc.selectFirst("#" + HtmlReport.ids(cells).get(cell) + " dl.numbers");
      assertThat(dl).isNotNull();
      assertThat(Integer.parseInt(dl.attr("data-violations"))).isEqualTo(r.violations());
      assertThat(Double.parseDouble(dl.attr("data-overlap-ms"))).isEqualTo(r.overlapNanos() / 1e6);
      assertThat(Integer.parseInt(dl.attr("data-stale-accepted"))).isEqualTo(r.staleAccepted());
      assertThat(Integer.parseInt(dl.attr("data-stale-rejected"))).isEqualTo(r.staleRejected());
      assertThat(Integer.parseInt(dl.attr("data-oversold"))).isEqualTo(r.oversold());
      assertThat(Integer.parseInt(dl.attr("data-lost"))).isEqualTo(r.lostUpdates());
      assertThat(Integer.parseInt(dl.attr("data-foreign"))).isEqualTo(r.foreignReleases());
      assertThat(Long.parseLong(dl.attr("data-recovery-nanos"))).isEqualTo(r.recoveryNanos());
      assertThat(Integer.parseInt(dl.attr("data-grants"))).isEqualTo(r.grants());
      assertThat(dl.attr("data-verdict")).isEqualTo(r.verdict().word());
    }
    Element s8f1 = doc.selectFirst("#cell-S8-F1 dl.numbers");
    assertThat(s8f1.attr("data-recovery-ms")).isEqualTo("2.500");
    assertThat(doc.selectFirst("#cell-S4-F1-gap dl.numbers").attr("data-recovery-ms")).isEqualTo("never");
    assertThat(doc.selectFirst("#cell-S7-F2 dl.numbers").attr("data-recovery-ms")).isEqualTo("none");
  }

  @Test
  void aCellWithoutTokensSaysSoWhereStaleWritesAreCounted() {
    Element s7 = doc.selectFirst("#cell-S7-F2 dl.numbers");
    Element s8 = doc.selectFirst("#cell-S8-F2 dl.numbers");
    assertThat(s7.attr("data-fenced")).isEqualTo("false");
    assertThat(s8.attr("data-fenced")).isEqualTo("true");
    assertThat(staleWrites(s7)).isEqualTo("no token");
    assertThat(staleWrites(s8)).isEqualTo("0 / 1");
    assertThat(doc.selectFirst("#scheme-S7 p.showed").text()).contains("no fencing token");
    assertThat(doc.selectFirst("#scheme-S8 p.showed").text()).contains("0 stale writes accepted and 1 rejected");
  }

  private static String staleWrites(Element numbers) {
    for (Element dt : numbers.select("dt")) {
      if (dt.text().startsWith("stale writes")) {
        return dt.nextElementSibling().text();
      }
    }
    throw new AssertionError("no stale writes in " + numbers);
  }

  @Test
  void theTimelineHasALanePerWorkerOverlapsAndFaults() {
    Element s7 = doc.selectFirst("#cell-S7-F2 svg");
    assertThat(s7.select("g.lane").eachAttr("data-worker")).containsExactly("w1", "w2", "w3");
    assertThat(s7.select("g.lane text.label").eachText()).containsExactly("w1", "w2", "w3");
    assertThat(s7.select("rect.hold")).hasSize(3);
    assertThat(s7.select("rect.overlap")).hasSize(1);
    assertThat(s7.select("rect.fault")).isEmpty();
    assertThat(s7.select("g.axis text").first().text()).isEqualTo("0.0s");

    Element s8f1 = doc.selectFirst("#cell-S8-F1 svg");
    assertThat(s8f1.select("rect.overlap")).isEmpty();
    assertThat(s8f1.select("rect.fault")).hasSize(1);
    assertThat(s8f1.select("rect.fault title").text()).isEqualTo("F1 w1");
    assertThat(doc.select("#cell-S8-F2 svg rect.overlap")).hasSize(1); // fenced, but the holds overlapped
    for (Cell c : cells) {
      Element svg = doc.selectFirst("#" + HtmlReport.ids(cells).get(c) + " svg");
      assertThat(svg.select("rect.overlap").isEmpty()).isEqualTo(c.shown().violations() == 0);
    }
  }

  @Test
  void theTimelineShowsTheFirstRunWithAViolation() {
    CellResult clean = new Histories().hold("w1", 0, 5, -1).check(info("S7", "F2", 100));
    CellResult broken = new Histories().hold("w1", 0, 10, -1).hold("w2", 5, 12, -1).check(
        new RunInfo("S7", "F2", "critical", 2, Histories.BASE, Histories.at(100), 1, -1, -1));
    Document d = Jsoup.parse(HtmlReport.render(Cell.group(List.of(clean, broken)), "t", "f"));
    assertThat(d.select("#cell-S7-F2 svg g.lane")).hasSize(2);
    assertThat(d.select("#cell-S7-F2 svg rect.overlap")).hasSize(1);
    assertThat(d.selectFirst("#cell-S7-F2 dl").attr("data-runs")).isEqualTo("2");
  }

  @Test
  void manyHoldsAreAllDrawnButOnlyWideOnesLabelled() {
    Histories h = new Histories();
    for (int i = 0; i < 300; i++) {
      h.hold(i == 0 ? "w5" : "w" + (i % 4 + 1), i * 10, i * 10 + (i == 0 ? 800 : 5), 100 + i);
    }
    CellResult r = h.check(info("S12", "none", 3000));
    Document d = Jsoup.parse(HtmlReport.render(Cell.group(List.of(r)), "t", "f"));
    Element svg = d.selectFirst("svg");
    assertThat(svg.select("rect.hold")).hasSize(300);
    assertThat(svg.select("text.token").eachText()).contains("100").hasSizeLessThan(300);
    assertThat(svg.select("g.lane")).hasSize(5);
  }

  @Test
  void theFileIsSelfContainedAndEscaped(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("report.html");
    HtmlReport.write(file, cells, "Lab <run> & \"x\"", "made by <the lab>");
    Document d = Jsoup.parse(file.toFile());
    assertThat(d.select("script")).isEmpty();
    assertThat(d.select("[src], [href]").eachAttr("abs:href")).allMatch(s -> !s.startsWith("http"));
    for (Element e : d.select("[src], [href]")) {
      assertThat(e.attr("src") + e.attr("href")).doesNotContainIgnoringCase("http");
    }
    assertThat(Files.readString(file)).doesNotContain("<script").doesNotContain("@import").doesNotContain("url(");
    assertThat(d.title()).isEqualTo("Lab <run> & \"x\"");
    assertThat(d.selectFirst("footer").text()).isEqualTo("made by <the lab>");
    assertThat(d.select("run, the")).isEmpty();
    assertThat(d.selectFirst("#scheme-S4 p.claim").text()).contains("waits forever");
    assertThat(d.selectFirst("#scheme-S7 p.showed").text()).contains("Under F2 (1 run), unsafe: 3 pairs");
    assertThat(d.selectFirst("#scheme-S4 p.showed").text()).contains("no worker got the lock again");
  }

  @Test
  void idsAreSanitizedAndUnique() {
    CellResult a = new Histories().hold("w1", 0, 1, -1).check(info("S 1", "F/2", 10));
    CellResult b = new Histories().hold("w1", 0, 1, -1).check(info("S_1", "F_2", 10));
    Document d = Jsoup.parse(HtmlReport.render(Cell.group(List.of(a, b)), "t", "f"));
    assertThat(d.select("#matrix td a:not(.guide)").eachAttr("href")).containsExactly("#cell-S_1-F_2", "#cell-S_1-F_2-2");
    assertThat(d.getElementById("cell-S_1-F_2-2")).isNotNull();
  }
}
