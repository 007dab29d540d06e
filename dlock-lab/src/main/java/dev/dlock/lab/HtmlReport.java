package dev.dlock.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The report as one HTML5 file: the verdict matrix, then per scheme what was claimed and what the
 * runs showed, with each cell's numbers and one run's timeline. It is a single file with inline CSS
 * and inline SVG, no script and no link to the network, so it opens anywhere (a CI artifact, a mail
 * attachment, a browser with no network) and a browser shows it without a single console error.
 * The numbers also sit in {@code data-} attributes, so tests and tools read them without parsing text.
 */
public final class HtmlReport {
  private static final String STYLE = String.join("\n",
      "body{font-family:sans-serif;margin:1.5em;color:#222}",
      "table{border-collapse:collapse}",
      "th,td{border:1px solid #bbb;padding:.25em .6em;text-align:left}",
      "td.safe{background:#c8efc8}td.unsafe{background:#f6a5a5}td.stuck{background:#fbd98a}",
      "td.none{color:#888}",
      "td a{color:inherit;text-decoration:none;display:block}",
      "td a.guide{display:inline;font-size:.8em;color:#555;text-decoration:underline}",
      "dl.numbers{display:grid;grid-template-columns:max-content max-content;gap:.1em 1em}",
      "dl.numbers dd{margin:0}",
      "svg{display:block;margin:.5em 0;background:#fafafa;border:1px solid #ddd}",
      "svg text{font:11px monospace;fill:#222}",
      "rect.hold{fill:#5b8fd0}rect.hold.shared{fill:#8cc46a}",
      "rect.fault{fill:#888;fill-opacity:.3}rect.overlap{fill:#d00000}",
      "rect.lane-bg{fill:#fff;stroke:#eee}",
      "line.axis{stroke:#444}",
      ".verdict-safe{color:#186a18}.verdict-unsafe{color:#a00}.verdict-stuck{color:#8a5a00}");

  /**
   * Where the matrix's cells link to unless told otherwise: the guide, relative to the report,
   * which is usually written in the repository's root.
   */
  public static final String GUIDE = "docs/choosing-a-lock.md";

  private HtmlReport() {}

  /** Writes {@link #render} of the arguments to {@code file} as UTF-8, cells linking to {@link #GUIDE}. */
  public static void write(Path file, List<Cell> cells, String title, String footer) {
    write(file, cells, title, footer, GUIDE);
  }

  /** Writes {@link #render} of the arguments to {@code file} as UTF-8. */
  public static void write(Path file, List<Cell> cells, String title, String footer, String guide) {
    try {
      Files.writeString(file, render(cells, title, footer, guide), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the report " + file, e);
    }
  }

  /** {@link #render(List, String, String, String)} with cells linking to {@link #GUIDE}. */
  public static String render(List<Cell> cells, String title, String footer) {
    return render(cells, title, footer, GUIDE);
  }

  /**
   * The whole report for {@code cells} as one self-contained HTML5 document.
   *
   * @param guide the guide's address as the report's links give it; each matrix cell links to its
   *              scheme's row there ({@link #guideAnchor})
   */
  public static String render(List<Cell> cells, String title, String footer, String guide) {
    Map<Cell, String> ids = ids(cells);
    StringBuilder h = new StringBuilder(8192);
    h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .append("<link rel=\"icon\" href=\"data:,\">\n") // no favicon request, so no 404 in the console
        .append("<title>").append(esc(title)).append("</title>\n<style>\n").append(STYLE)
        .append("\n</style>\n</head>\n<body>\n<h1>").append(esc(title)).append("</h1>\n");
    matrix(h, cells, ids, guide);
    for (String scheme : TerminalReport.schemes(cells)) {
      List<Cell> own = cells.stream().filter(c -> c.scheme().equals(scheme)).toList();
      String id = Cell.schemeOf(scheme);
      String name = Claims.known(id) ? Claims.title(id) : scheme;
      h.append("<section class=\"scheme\" id=\"scheme-").append(esc(sanitize(scheme))).append("\">\n<h2>")
          .append(esc(scheme)).append(": ").append(esc(name)).append("</h2>\n");
      if (Claims.known(id)) {
        h.append("<p class=\"claim\"><strong>Claimed:</strong> ").append(esc(Claims.claim(id))).append("</p>\n");
      }
      h.append("<p class=\"showed\"><strong>Shown:</strong> ");
      for (Cell c : own) {
        h.append(esc(sentence(c))).append(' ');
      }
      h.append("</p>\n");
      for (Cell c : own) {
        cell(h, c, ids.get(c));
      }
      h.append("</section>\n");
    }
    h.append("<footer><p>").append(esc(footer)).append("</p></footer>\n</body>\n</html>\n");
    return h.toString();
  }

  private static void matrix(StringBuilder h, List<Cell> cells, Map<Cell, String> ids, String guide) {
    List<String> faults = TerminalReport.faults(cells);
    h.append("<table id=\"matrix\">\n<thead><tr><th>scheme</th>");
    for (String f : faults) {
      h.append("<th>").append(esc(f)).append("</th>");
    }
    h.append("</tr></thead>\n<tbody>\n");
    for (String scheme : TerminalReport.schemes(cells)) {
      h.append("<tr><th>").append(esc(scheme)).append("</th>");
      for (String fault : faults) {
        Cell c = TerminalReport.find(cells, scheme, fault);
        if (c == null) {
          h.append("<td class=\"none\">-</td>");
        } else {
          h.append("<td class=\"").append(c.verdict().word()).append("\"><a href=\"#")
              .append(esc(ids.get(c))).append("\">").append(esc(TerminalReport.key(c))).append("</a>")
              .append("<a class=\"guide\" href=\"").append(esc(guide + "#" + guideAnchor(scheme)))
              .append("\" title=\"").append(esc(Cell.schemeOf(scheme))).append(" in the guide\">guide</a></td>");
        }
      }
      h.append("</tr>\n");
    }
    h.append("</tbody>\n</table>\n<p class=\"legend\">v= violations (overlapping holds), s= stale writes"
        + " accepted, o= oversold, l= lost updates, f= foreign releases; - not run. A scheme whose grants carry no"
        + " fencing token shows \"no token\" for its stale writes: nothing could reject them.</p>\n");
  }

  private static void cell(StringBuilder h, Cell c, String id) {
    h.append("<section class=\"cell\" id=\"").append(esc(id)).append("\">\n<h3>").append(esc(c.scheme()))
        .append(" under ").append(esc(c.fault())).append(": <span class=\"verdict-").append(c.verdict().word())
        .append("\">").append(c.verdict().word()).append("</span></h3>\n");
    String recoveryMs = c.deadlock() ? "never" : c.recoveryNanos() < 0 ? "none"
        : String.format(Locale.ROOT, "%.3f", c.recoveryNanos() / 1e6);
    h.append("<dl class=\"numbers\"")
        .append(data("runs", c.runs().size()))
        .append(data("violations", c.violations()))
        .append(data("overlap-ms", String.format(Locale.ROOT, "%.3f", c.overlapNanos() / 1e6)))
        .append(data("stale-accepted", c.staleAccepted()))
        .append(data("stale-rejected", c.staleRejected()))
        .append(data("fenced", c.fenced()))
        .append(data("oversold", c.oversold()))
        .append(data("lost", c.lostUpdates()))
        .append(data("foreign", c.foreignReleases()))
        .append(data("recovery-ms", recoveryMs))
        .append(data("recovery-nanos", c.recoveryNanos()))
        .append(data("deadlock", c.deadlock()))
        .append(data("grants", c.grants()))
        .append(data("releases", c.releases()))
        .append(data("wakeups", c.wakeups()))
        .append(data("grants-per-second", String.format(Locale.ROOT, "%.3f", c.grantsPerSecond())))
        .append(data("verdict", c.verdict().word()))
        .append(">\n");
    item(h, "runs", Integer.toString(c.runs().size()));
    item(h, "violations", Integer.toString(c.violations()));
    item(h, "overlap (ms)", TerminalReport.ms(c.overlapNanos()));
    item(h, "stale writes accepted / rejected",
        c.fenced() ? c.staleAccepted() + " / " + c.staleRejected() : "no token");
    item(h, "oversold", Integer.toString(c.oversold()));
    item(h, "lost updates", Integer.toString(c.lostUpdates()));
    item(h, "foreign releases", Integer.toString(c.foreignReleases()));
    item(h, "recovery (ms, max)", TerminalReport.recovery(c));
    item(h, "wake-ups per release", TerminalReport.ratio(c.wakeupsPerRelease()));
    item(h, "grants per second", String.format(Locale.ROOT, "%.1f", c.grantsPerSecond()));
    h.append("</dl>\n");
    CellResult shown = c.shown();
    h.append("<p>Timeline of run ").append(shown.info().run()).append(" (seconds from its start):</p>\n");
    Timeline.draw(h, shown);
    h.append("</section>\n");
  }

  /** One sentence of what {@code c}'s runs showed, made from its numbers. */
  static String sentence(Cell c) {
    List<String> parts = new ArrayList<>();
    parts.add(c.violations() > 0
        ? c.violations() + " pairs of overlapping holds (" + TerminalReport.ms(c.overlapNanos()) + " ms in all)"
        : "no overlapping holds");
    if (!c.fenced()) {
      parts.add(c.staleAccepted() > 0 ? "no fencing token, so the resource took every stale write ("
          + c.staleAccepted() + ")" : "no fencing token");
    } else if (c.staleAccepted() + c.staleRejected() > 0) {
      parts.add(c.staleAccepted() + " stale writes accepted and " + c.staleRejected() + " rejected");
    }
    if (c.oversold() > 0) {
      parts.add(c.oversold() + " items oversold");
    }
    if (c.lostUpdates() > 0) {
      parts.add(c.lostUpdates() + " sales lost");
    }
    if (c.foreignReleases() > 0) {
      parts.add(c.foreignReleases() + " releases freed another worker's lock");
    }
    if (c.deadlock()) {
      parts.add("after a fault no worker got the lock again");
    } else if (c.recoveryNanos() >= 0) {
      parts.add("the lock was granted again at most " + TerminalReport.ms(c.recoveryNanos()) + " ms after a fault");
    }
    if (!Double.isNaN(c.wakeupsPerRelease())) {
      parts.add(TerminalReport.ratio(c.wakeupsPerRelease()) + " wake-ups per release");
    }
    return "Under " + c.fault() + " (" + c.runs().size() + (c.runs().size() == 1 ? " run" : " runs")
        + "), " + c.verdict().word() + ": " + String.join("; ", parts) + ".";
  }

  private static void item(StringBuilder h, String name, String value) {
    h.append("<dt>").append(esc(name)).append("</dt><dd>").append(esc(value)).append("</dd>\n");
  }

  private static String data(String name, Object value) {
    return " data-" + name + "=\"" + esc(String.valueOf(value)) + "\"";
  }

  /** The section id of each cell: {@code cell-<scheme>-<fault>}, sanitized and made unique. */
  static Map<Cell, String> ids(List<Cell> cells) {
    Map<Cell, String> ids = new IdentityHashMap<>();
    Set<String> used = new HashSet<>();
    for (Cell c : cells) {
      String base = "cell-" + sanitize(c.scheme()) + "-" + sanitize(c.fault());
      String id = base;
      for (int n = 2; !used.add(id); n++) {
        id = base + "-" + n;
      }
      ids.put(c, id);
    }
    return ids;
  }

  /**
   * The anchor of a matrix row's line in the guide: its scheme id in lower case, so {@code S8-wrong}
   * and {@code none (flash)} link to {@code s8-wrong} and {@code none}.
   */
  public static String guideAnchor(String row) {
    return sanitize(Cell.schemeOf(row).toLowerCase(Locale.ROOT));
  }

  /** {@code text} with every character but letters, digits, '-' and '_' replaced by '_'. */
  static String sanitize(String text) {
    StringBuilder b = new StringBuilder(text.length());
    for (char ch : text.toCharArray()) {
      boolean plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
          || ch == '-' || ch == '_';
      b.append(plain ? ch : '_');
    }
    return b.toString();
  }

  /** {@code text} escaped for HTML text and attribute values. */
  static String esc(String text) {
    if (text == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(text.length() + 16);
    for (char ch : text.toCharArray()) {
      switch (ch) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(ch);
      }
    }
    return b.toString();
  }
}
