package dev.dlock.lab;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Draws one run as inline SVG for {@link HtmlReport}: a lane per worker with its holds, the fault
 * windows shaded across all lanes, the overlaps in a red row of their own, and a time axis. A run
 * may hold hundreds of holds, so every hold is drawn but a token label only where it fits; that keeps
 * the picture honest and the file small.
 */
final class Timeline {
  private static final int WIDTH = 900;
  private static final int LEFT = 56;
  private static final int RIGHT = 20;
  private static final int LANE = 18;
  private static final int GAP = 4;
  private static final int TOP = 6;
  private static final double CHAR = 6.6; // 11px monospace

  private Timeline() {}

  /** Appends the SVG of {@code run} to {@code h}. */
  static void draw(StringBuilder h, CellResult run) {
    List<Event> events = run.events();
    List<Checker.Hold> holds = Checker.holds(events);
    List<String> workers = workers(events);
    long start = run.info().startNanos();
    long end = run.info().endNanos();
    for (Event e : events) {
      end = Math.max(end, e.nanos());
    }
    double span = Math.max(1, end - start);
    int lanesBottom = TOP + (workers.size() + 1) * (LANE + GAP);
    int height = lanesBottom + 22;
    double plot = WIDTH - LEFT - RIGHT;

    h.append("<svg class=\"timeline\" width=\"").append(WIDTH)
        .append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ')
        .append(height).append("\" role=\"img\">\n");
    for (int i = 0; i < workers.size(); i++) {
      String w = workers.get(i);
      int y = TOP + i * (LANE + GAP);
      h.append("<g class=\"lane\" data-worker=\"").append(HtmlReport.esc(w)).append("\">")
          .append(rect("lane-bg", LEFT, y, plot, LANE)).append("/>")
          .append("<text class=\"label\" x=\"4\" y=\"").append(y + 13).append("\">")
          .append(HtmlReport.esc(w)).append("</text>");
      for (Checker.Hold hold : holds) {
        if (!hold.process().equals(w)) {
          continue;
        }
        double x = x(hold.start(), start, span, plot);
        double width = Math.max(1, x(hold.end(), start, span, plot) - x);
        h.append(rect(hold.shared() ? "hold shared" : "hold", x, y + 2, width, LANE - 4)).append("/>");
        String label = Long.toString(hold.token());
        if (hold.token() >= 0 && width >= label.length() * CHAR + 4) {
          h.append("<text class=\"token\" x=\"").append(num(x + 2)).append("\" y=\"").append(y + 13)
              .append("\">").append(label).append("</text>");
        }
      }
      h.append("</g>\n");
    }
    int overlapY = TOP + workers.size() * (LANE + GAP);
    h.append("<g class=\"overlaps\"><text class=\"label\" x=\"4\" y=\"").append(overlapY + 13)
        .append("\">overlap</text>");
    for (long[] s : Checker.overlaps(holds)) {
      double x = x(s[0], start, span, plot);
      h.append(rect("overlap", x, overlapY + 2, Math.max(1, x(s[1], start, span, plot) - x), LANE - 4))
          .append("/>");
    }
    h.append("</g>\n");
    for (Checker.Window w : Checker.windows(events)) {
      double x = x(w.start(), start, span, plot);
      double width = Math.max(2, x(w.end(), start, span, plot) - x);
      h.append(rect("fault", x, TOP, width, lanesBottom - TOP)).append("><title>")
          .append(HtmlReport.esc(w.fault() + " " + w.target())).append("</title></rect>\n");
    }
    axis(h, span, plot, lanesBottom);
    h.append("</svg>\n");
  }

  private static void axis(StringBuilder h, double span, double plot, int y) {
    h.append("<g class=\"axis\"><line class=\"axis\" x1=\"").append(LEFT).append("\" y1=\"").append(y)
        .append("\" x2=\"").append(num(LEFT + plot)).append("\" y2=\"").append(y).append("\"/>");
    double seconds = span / 1e9;
    double step = 1e-6;
    choose:
    for (double base = 1e-6; ; base *= 10) {
      for (double m : new double[] {1, 2, 5}) {
        if (seconds / (base * m) <= 10) {
          step = base * m;
          break choose;
        }
      }
    }
    int decimals = Math.max(0, (int) Math.ceil(-Math.log10(step) - 1e-9));
    for (int i = 0; i * step <= seconds + 1e-12; i++) {
      double x = LEFT + i * step * 1e9 / span * plot;
      h.append("<line class=\"axis\" x1=\"").append(num(x)).append("\" y1=\"").append(y).append("\" x2=\"")
          .append(num(x)).append("\" y2=\"").append(y + 4).append("\"/><text text-anchor=\"middle\" x=\"").append(num(x))
          .append("\" y=\"").append(y + 16).append("\">")
          .append(String.format(Locale.ROOT, "%." + decimals + "f", i * step)).append("s</text>");
    }
    h.append("</g>\n");
  }

  /** The worker processes of {@code events}, ordered w1, w2, ..., w10. */
  static List<String> workers(List<Event> events) {
    Set<String> seen = new LinkedHashSet<>();
    for (Event e : events) {
      if (!e.process().equals("injector")) {
        seen.add(e.process());
      }
    }
    List<String> workers = new ArrayList<>(seen);
    workers.sort(Comparator.comparing((String w) -> w.replaceAll("[0-9]+$", ""))
        .thenComparingLong(w -> {
          String digits = w.replaceAll("^.*?([0-9]*)$", "$1");
          return digits.isEmpty() || digits.length() > 18 ? -1 : Long.parseLong(digits);
        })
        .thenComparing(Comparator.naturalOrder()));
    return workers;
  }

  private static double x(long t, long start, double span, double plot) {
    return LEFT + Math.max(0, Math.min(1, (t - start) / span)) * plot;
  }

  private static String rect(String cls, double x, double y, double w, double height) {
    return "<rect class=\"" + cls + "\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w)
        + "\" height=\"" + num(height) + "\"";
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
