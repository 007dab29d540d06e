package dev.dlock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jsoup.nodes.DataNode;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.DocumentType;
import org.jsoup.nodes.Element;

/**
 * The bench's results as one HTML file, {@code bench-report.html} beside the Markdown table: the
 * run's settings, a bar chart per workload, the table and its legend. The file has inline CSS and
 * inline SVG, no script and no reference outside itself, so it opens offline, as a CI artifact or a
 * mail attachment. Throughput workloads chart ops/s; the handoff (W4) and any workload whose rows
 * carry a time but no throughput chart the p50. The baseline's bar is highlighted, and every row
 * of a target named {@code floor-...} is also drawn as a line across its workload's chart, so each
 * bar reads as a fraction of the floor. jsoup builds the document and escapes every string in it.
 */
final class HtmlReport {
  /** The file's name; it is written in the Markdown table's folder. */
  static final String FILE = "bench-report.html";

  /** A floor target's name starts with this: the fewest round trips its backend allows. */
  static final String FLOOR_PREFIX = "floor-";

  private static final String STYLE = String.join("\n",
      "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1000px}",
      "table{border-collapse:collapse;font-size:.9em}",
      "th,td{border:1px solid #bbb;padding:.2em .6em;text-align:left}",
      "td.num{text-align:right;font-variant-numeric:tabular-nums}",
      "tr.baseline td{background:#fde8c8}tr.floor td{background:#eee}",
      "dl.settings{display:grid;grid-template-columns:max-content auto;gap:.15em 1em}",
      "dl.settings dd{margin:0}",
      "svg.chart{display:block;margin:.3em 0 1.2em;background:#fcfcfc;border:1px solid #ddd;",
      "  max-width:100%;height:auto}",
      // A halo in the background's colour keeps a value legible where a floor line crosses it.
      "svg text{font:12px monospace;fill:#222;paint-order:stroke;stroke:#fcfcfc;stroke-width:3px}",
      "p.metric{margin:.2em 0;color:#555}",
      "g.bar rect{fill:#5b8fd0}g.bar.baseline rect{fill:#e8912d}g.bar.floor rect{fill:#9a9a9a}",
      "g.bar.baseline text.name{font-weight:bold}",
      "g.floor-line line{stroke:#333;stroke-width:1.5;stroke-dasharray:5 3}",
      "g.axis line.grid{stroke:#e4e4e4}g.axis line.base{stroke:#444}g.axis text.unit{font-weight:bold}",
      ".key span{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em;vertical-align:middle}",
      ".key .target{background:#5b8fd0}.key .baseline{background:#e8912d}.key .floor{background:#9a9a9a}",
      "ul.legend{font-size:.9em}");

  private HtmlReport() {}

  /** Where the report of a run that writes its Markdown to {@code markdown} goes: beside it. */
  static Path file(Path markdown) {
    return markdown.toAbsolutePath().resolveSibling(FILE);
  }

  /** Writes {@link #render} of the arguments to {@code file} as UTF-8. */
  static void write(Path file, ResultTable table, Settings settings, String legend, String when) {
    try {
      Files.writeString(file, render(table, settings, legend, when).outerHtml(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the HTML report " + file, e);
    }
  }

  /**
   * The whole report.
   *
   * @param legend what the columns and targets mean, one item a line (as printed below the table)
   * @param when the run's date and time, as the Markdown file gives it
   */
  static Document render(ResultTable table, Settings settings, String legend, String when) {
    Document doc = Document.createShell("");
    doc.prependChild(new DocumentType("html", "", ""));
    doc.outputSettings().charset(StandardCharsets.UTF_8).indentAmount(1);
    doc.body().parent().attr("lang", "en");
    Element head = doc.head();
    head.appendElement("meta").attr("charset", "utf-8");
    head.appendElement("meta").attr("name", "viewport").attr("content", "width=device-width, initial-scale=1");
    // An empty icon of its own, so the browser requests no favicon.ico (a 404 in the console).
    head.appendElement("link").attr("rel", "icon").attr("href", "data:,");
    head.appendElement("title").text("dlock bench: " + String.join(", ", settings.targets()));
    head.appendElement("style").appendChild(new DataNode(STYLE));

    Element body = doc.body();
    body.appendElement("h1").text("dlock bench results");
    settings(body.appendElement("section").id("settings"), settings, when);
    Element charts = body.appendElement("section").id("charts");
    Element key = charts.appendElement("p").addClass("key").text("Bars:");
    swatch(key, "target", "target");
    swatch(key, "baseline", "baseline (" + settings.baseline() + ")");
    if (table.rows().stream().anyMatch(r -> r.target().startsWith(FLOOR_PREFIX))) {
      swatch(key, "floor", "floor (" + FLOOR_PREFIX + "*), also a dashed line across its chart");
    }
    for (Workload w : workloads(table.rows())) {
      chart(charts, w, table.rows().stream().filter(r -> r.workload() == w).toList(), settings.baseline());
    }
    Element tableSection = body.appendElement("section").id("table");
    tableSection.appendElement("h2").text("Table");
    table(tableSection, table, settings.baseline());
    Element notes = tableSection.appendElement("ul").addClass("legend");
    for (String line : legend.split("\n")) {
      if (!line.isBlank()) {
        notes.appendElement("li").text(line);
      }
    }
    return doc;
  }

  private static void settings(Element section, Settings s, String when) {
    Element dl = section.appendElement("dl").addClass("settings");
    item(dl, "date", when);
    item(dl, "Java", System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")");
    item(dl, "cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    item(dl, "targets", String.join(", ", s.targets()));
    item(dl, "baseline", s.baseline());
    item(dl, "workloads", String.join(", ", s.workloads().stream().map(Workload::name).toList()));
    item(dl, "JMH", s.describe());
  }

  private static void swatch(Element key, String css, String text) {
    key.appendElement("span").addClass(css);
    key.appendText(text);
  }

  private static void item(Element dl, String name, String value) {
    dl.appendElement("dt").text(name);
    dl.appendElement("dd").text(value);
  }

  private static void chart(Element parent, Workload w, List<Row> rows, String baseline) {
    boolean latency = latency(w, rows);
    double max = 0;
    for (Row r : rows) {
      double v = latency ? r.p50Nanos() : r.opsPerSec();
      max = Double.isFinite(v) ? Math.max(max, v) : max;
    }
    Unit unit = latency ? Unit.time(max) : Unit.rate(max);
    List<BarChart.Bar> bars = new ArrayList<>();
    List<BarChart.Marker> floors = new ArrayList<>();
    for (Row r : rows) {
      double raw = latency ? r.p50Nanos() : r.opsPerSec();
      String text = !Double.isFinite(raw) ? "failed" : latency ? ResultTable.time(raw)
          : String.format(Locale.ROOT, "%,.0f ops/s", raw);
      boolean floor = r.target().startsWith(FLOOR_PREFIX);
      String css = r.target().equals(baseline) ? "baseline" : floor ? "floor" : "target";
      bars.add(new BarChart.Bar(r.target(), raw / unit.divisor(), text, css));
      if (floor && Double.isFinite(raw)) {
        floors.add(new BarChart.Marker(r.target(), raw / unit.divisor(), text));
      }
    }
    Element section = parent.appendElement("section").addClass("workload").id("chart-" + w.name())
        .attr("data-workload", w.name()).attr("data-metric", latency ? "p50" : "ops/s");
    section.appendElement("h2").text(w.name() + ": " + w.description);
    String what = latency ? "p50 latency (lower is better)" : "throughput over all threads (higher is better)";
    section.appendElement("p").addClass("metric").text(what);
    BarChart.draw(section, w.name() + ", " + what, unit.label(), bars, floors);
  }

  /**
   * Whether {@code w} is charted by its p50: the handoff, whose question is how soon the waiter
   * runs, and any workload whose rows carry a time but no throughput.
   */
  static boolean latency(Workload w, List<Row> rows) {
    if (w == Workload.W4) {
      return true;
    }
    boolean anyRate = rows.stream().anyMatch(r -> Double.isFinite(r.opsPerSec()) && r.opsPerSec() > 0);
    boolean anyTime = rows.stream().anyMatch(r -> Double.isFinite(r.p50Nanos()) && r.p50Nanos() > 0);
    return !anyRate && anyTime;
  }

  private static void table(Element section, ResultTable table, String baseline) {
    List<List<String>> lines = table.lines();
    Element t = section.appendElement("table");
    Element head = t.appendElement("thead").appendElement("tr");
    for (String h : lines.get(0)) {
      head.appendElement("th").text(h);
    }
    Element body = t.appendElement("tbody");
    List<Row> rows = table.rows();
    for (int i = 1; i < lines.size(); i++) {
      Row r = rows.get(i - 1);
      Element tr = body.appendElement("tr").attr("data-target", r.target());
      if (r.target().equals(baseline)) {
        tr.addClass("baseline");
      } else if (r.target().startsWith(FLOOR_PREFIX)) {
        tr.addClass("floor");
      }
      List<String> cells = lines.get(i);
      for (int c = 0; c < cells.size(); c++) {
        Element td = tr.appendElement("td").text(cells.get(c));
        // Text columns to the left, numbers to the right, as in the terminal's table.
        if (c >= 2) {
          td.addClass("num");
        }
      }
      if (r.failure() != null) {
        tr.attr("title", r.failure());
      }
    }
    List<Row> failed = rows.stream().filter(r -> r.failure() != null).toList();
    if (!failed.isEmpty()) {
      Element ul = section.appendElement("ul").addClass("failures");
      for (Row r : failed) {
        ul.appendElement("li").text(r.workload() + " on " + r.target() + " failed: " + r.failure());
      }
    }
  }

  /** The workloads of {@code rows}, in the order they first appear. */
  private static List<Workload> workloads(List<Row> rows) {
    Set<Workload> seen = new LinkedHashSet<>();
    for (Row r : rows) {
      seen.add(r.workload());
    }
    return List.copyOf(seen);
  }

  /** An axis's unit: values are divided by {@code divisor} and the axis says {@code label}. */
  record Unit(double divisor, String label) {
    /** ops/s, in thousands or millions when the largest is that big. */
    static Unit rate(double max) {
      if (max >= 1e6) {
        return new Unit(1e6, "millions of ops/s");
      }
      return max >= 1e4 ? new Unit(1e3, "thousands of ops/s") : new Unit(1, "ops/s");
    }

    /** A time in nanoseconds, in the unit of the largest, as the table writes it. */
    static Unit time(double maxNanos) {
      if (maxNanos >= 1e9) {
        return new Unit(1e9, "p50, s");
      }
      if (maxNanos >= 1e6) {
        return new Unit(1e6, "p50, ms");
      }
      return maxNanos >= 1e3 ? new Unit(1e3, "p50, us") : new Unit(1, "p50, ns");
    }
  }
}
