package dev.dlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.select.Elements;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.options.TimeValue;

/** The report's structure, read back with jsoup from rows made here (the floor rows included). */
class HtmlReportTest {
  static final String ODD = "floor-<b>pg</b> & \"x\"";

  static Settings settings(String... targets) {
    return new Settings(List.of(Workload.W1, Workload.W2, Workload.W4), List.of(targets), targets[0], 1, 10,
        TimeValue.seconds(2), 3, TimeValue.seconds(1), false, Path.of("bench-results.md"), false);
  }

  private final ResultTable table = new ResultTable(List.of(
      new Row(Workload.W1, "dlock-redis", 1, 12_000, 80_000, 200_000),
      new Row(Workload.W1, "redisson", 1, 4_000, 240_000, 900_000),
      new Row(Workload.W1, "floor-redis", 1, 14_000, 70_000, 190_000),
      new Row(Workload.W1, ODD, 1, 9_000, 100_000, 300_000),
      new Row(Workload.W2, "dlock-redis", 16, 150_000, 90_000, 400_000),
      Row.failed(Workload.W2, "redisson", new IllegalStateException("gave <up>")),
      new Row(Workload.W4, "dlock-redis", 2, 3_000, 150_000, 350_000),
      new Row(Workload.W4, "redisson", 2, 360, 760_000, 43_000_000)), "redisson");
  private final Document doc = Jsoup.parse(HtmlReport.render(table,
      settings("redisson", "dlock-redis", "floor-redis", ODD), "W1: one <thread>\nSettings: x.",
      "2026-11-27 02:40").outerHtml());

  @Test
  void eachWorkloadHasOneChartWithABarPerTarget() {
    Elements charts = doc.select("section.workload");
    assertThat(charts.eachAttr("data-workload")).containsExactly("W1", "W2", "W4");
    assertThat(charts).allMatch(c -> c.select("svg").size() == 1);
    Element w1 = doc.getElementById("chart-W1");
    assertThat(w1.attr("data-metric")).isEqualTo("ops/s");
    assertThat(w1.select("g.bar").eachAttr("data-name")).containsExactly("dlock-redis", "redisson", "floor-redis", ODD);
    // Values in the axis's unit (thousands), which the axis names.
    assertThat(w1.select("g.bar").eachAttr("data-value")).containsExactly("12.0", "4.0", "14.0", "9.0");
    assertThat(w1.select("svg text.unit").text()).isEqualTo("thousands of ops/s");
    assertThat(w1.select("g.bar.baseline").eachAttr("data-name")).containsExactly("redisson");
    assertThat(w1.select("g.bar.floor").eachAttr("data-name")).containsExactly("floor-redis", ODD);
    assertThat(doc.select("p.key span").eachAttr("class")).containsExactly("target", "baseline", "floor");
    // The longest bar is the largest value, and the widths are in proportion.
    double dlock = width(w1, "dlock-redis");
    assertThat(width(w1, "redisson") / dlock).isCloseTo(4.0 / 12, org.assertj.core.data.Offset.offset(0.01));
    assertThat(width(w1, "floor-redis")).isGreaterThan(dlock);

    Element w2 = doc.getElementById("chart-W2");
    assertThat(w2.select("g.bar[data-name=redisson]").attr("data-value")).isEqualTo("failed");
    assertThat(w2.select("g.bar[data-name=redisson] rect")).isEmpty();
    assertThat(doc.select("ul.failures li").text()).contains("W2 on redisson failed").contains("gave <up>");
  }

  @Test
  void theHandoffIsChartedByItsP50WithItsUnit() {
    Element w4 = doc.getElementById("chart-W4");
    assertThat(w4.attr("data-metric")).isEqualTo("p50");
    assertThat(w4.select("g.bar").eachAttr("data-value")).containsExactly("150.0", "760.0");
    assertThat(w4.select("svg text.unit").text()).isEqualTo("p50, us");
    assertThat(w4.select("g.bar text.value").eachText()).containsExactly("150.0 us", "760.0 us");
  }

  @Test
  void aFloorRowIsALineAcrossItsWorkloadsChartAndOnlyThere() {
    Element w1 = doc.getElementById("chart-W1");
    Elements floors = w1.select("g.floor-line");
    assertThat(floors.eachAttr("data-name")).containsExactly("floor-redis", ODD);
    Element line = floors.get(0).selectFirst("line");
    double x = Double.parseDouble(line.attr("x1"));
    assertThat(line.attr("x2")).isEqualTo(line.attr("x1"));
    // At the floor bar's end, spanning every bar.
    Element floorBar = w1.selectFirst("g.bar[data-name=floor-redis] rect");
    assertThat(x).isCloseTo(Double.parseDouble(floorBar.attr("x")) + Double.parseDouble(floorBar.attr("width")),
        org.assertj.core.data.Offset.offset(0.2));
    double lastBarBottom = w1.select("g.bar rect").stream()
        .mapToDouble(r -> Double.parseDouble(r.attr("y")) + Double.parseDouble(r.attr("height"))).max().orElseThrow();
    assertThat(Double.parseDouble(line.attr("y2"))).isGreaterThanOrEqualTo(lastBarBottom);
    assertThat(Double.parseDouble(line.attr("y1")))
        .isLessThanOrEqualTo(w1.select("g.bar rect").stream().mapToDouble(r -> Double.parseDouble(r.attr("y"))).min()
            .orElseThrow());
    assertThat(doc.select("#chart-W2 g.floor-line, #chart-W4 g.floor-line")).as("workloads without a floor row").isEmpty();
  }

  @Test
  void namesAreEscapedNotMarkup() {
    assertThat(doc.select("b")).as("elements made from a target's name").isEmpty();
    assertThat(doc.getElementById("chart-W1").select("g.bar text.name").eachText()).contains(ODD);
    assertThat(doc.select("#table tr[data-target]").eachAttr("data-target")).contains(ODD);
    assertThat(doc.select("#settings dd").eachText()).contains("redisson, dlock-redis, floor-redis, " + ODD);
    assertThat(doc.select("ul.legend li").eachText()).containsExactly("W1: one <thread>", "Settings: x.");
  }

  @Test
  void theTableAndTheSettingsAreThere() {
    assertThat(doc.select("#table thead th").eachText()).containsExactly("workload", "target", "threads", "ops/s",
        "p50", "p99", "ops/s vs redisson", "of floor", "B/op");
    assertThat(doc.select("#table tbody tr")).hasSize(8);
    assertThat(doc.select("#table tbody tr").get(0).select("td").eachText())
        .containsExactly("W1", "dlock-redis", "1", "12,000", "80.0 us", "200.0 us", "3x", "0.86x", "-");
    assertThat(doc.select("#table tr.baseline").eachAttr("data-target")).containsOnly("redisson").hasSize(3);
    assertThat(doc.select("#settings dt").eachText())
        .containsExactly("date", "Java", "cores", "targets", "baseline", "workloads", "JMH");
    assertThat(doc.select("#settings dd").get(0).text()).isEqualTo("2026-11-27 02:40");
    assertThat(doc.select("#settings dd").get(2).text())
        .isEqualTo(Integer.toString(Runtime.getRuntime().availableProcessors()));
    assertThat(doc.select("#settings dd").last().text()).isEqualTo(settings("x").describe());
  }

  @Test
  void nothingIsLoadedFromOutsideTheFile() {
    assertThat(doc.select("script")).isEmpty();
    for (Element e : doc.select("[src], [href], [xlink:href], link, object, iframe, embed, img")) {
      String ref = e.hasAttr("src") ? e.attr("src") : e.hasAttr("href") ? e.attr("href") : e.attr("xlink:href");
      assertThat(ref).as("reference in %s", e).matches("data:.*|#.*");
    }
    String css = doc.select("style").html();
    assertThat(css).doesNotContain("url(").doesNotContain("@import").doesNotContain("@font-face");
    assertThat(doc.select("[style]")).as("inline style attributes").isEmpty();
  }

  @Test
  void theReportIsWrittenBesideTheMarkdown() {
    assertThat(HtmlReport.file(Path.of("/r/out/bench-results.md"))).isEqualTo(Path.of("/r/out/bench-report.html"));
  }

  private static double width(Element chart, String name) {
    return Double.parseDouble(chart.selectFirst("g.bar[data-name=" + name + "] rect").attr("width"));
  }
}
