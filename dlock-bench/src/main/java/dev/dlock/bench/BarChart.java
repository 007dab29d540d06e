package dev.dlock.bench;

import java.util.List;
import java.util.Locale;
import org.jsoup.nodes.Element;

/**
 * One horizontal bar chart as inline SVG, built with jsoup so that every name and number is escaped
 * by the library. Bars run left to right, one per row, their names on the left and their values at
 * their ends; markers (the floors) are dashed lines across all bars with their names above the
 * plot, each on a line of its own so that two close floors do not write over each other. The axis
 * has round ticks (1, 2 or 5 times a power of ten) and its unit below it. Sizes are fixed in
 * pixels and text is 12px monospace, so label widths are known without a browser.
 */
final class BarChart {
  /** One bar: its value in the axis's unit, NaN when the measurement failed. */
  record Bar(String name, double value, String valueText, String cssClass) {}

  /** A line across the bars at {@code value}, in the axis's unit. */
  record Marker(String name, double value, String valueText) {}

  private static final int WIDTH = 960;
  private static final double CHAR = 7.3; // 12px monospace
  private static final int BAR = 22;
  private static final int GAP = 8;
  private static final int MARKER_LINE = 15;
  private static final int AXIS = 44;
  private static final int RIGHT = 170; // room for the longest value text past a full bar

  private BarChart() {}

  /**
   * Appends the chart's {@code <svg>} to {@code parent} and returns it.
   *
   * @param unit the axis's unit, shown below it, e.g. {@code "ops/s, millions"} or {@code "us"}
   */
  static Element draw(Element parent, String title, String unit, List<Bar> bars, List<Marker> markers) {
    int longest = bars.stream().mapToInt(b -> b.name().length()).max().orElse(0);
    int left = (int) Math.min(320, Math.max(110, longest * CHAR + 16));
    int plot = WIDTH - left - RIGHT;
    int top = 10 + markers.size() * MARKER_LINE;
    int barsBottom = top + bars.size() * (BAR + GAP);
    int height = barsBottom + AXIS;
    double max = 0;
    for (Bar b : bars) {
      max = Double.isFinite(b.value()) ? Math.max(max, b.value()) : max;
    }
    for (Marker m : markers) {
      max = Double.isFinite(m.value()) ? Math.max(max, m.value()) : max;
    }
    double step = step(max);
    double end = max > 0 ? Math.ceil(max / step - 1e-9) * step : step;
    Scale x = new Scale(left, plot, end);

    Element svg = parent.appendElement("svg").attr("class", "chart").attr("width", Integer.toString(WIDTH))
        .attr("height", Integer.toString(height))
        .attr("viewBox", "0 0 " + WIDTH + " " + height).attr("role", "img").attr("aria-label", title);
    svg.appendElement("title").text(title);
    axis(svg, x, step, barsBottom, top, unit);
    for (int i = 0; i < bars.size(); i++) {
      bar(svg, bars.get(i), x, left, top + i * (BAR + GAP) + GAP / 2);
    }
    for (int i = 0; i < markers.size(); i++) {
      Marker m = markers.get(i);
      if (!Double.isFinite(m.value())) {
        continue;
      }
      double at = x.at(m.value());
      Element g = svg.appendElement("g").attr("class", "floor-line").attr("data-name", m.name())
          .attr("data-value", Double.toString(m.value()));
      g.appendElement("line").attr("x1", num(at)).attr("x2", num(at))
          .attr("y1", Integer.toString(10 + i * MARKER_LINE)).attr("y2", Integer.toString(barsBottom));
      // Past the middle the label ends at the line, so it never runs off the chart.
      boolean leftOfLine = at > left + plot / 2.0;
      g.appendElement("text").attr("x", num(leftOfLine ? at - 4 : at + 4))
          .attr("y", Integer.toString(10 + i * MARKER_LINE + 10))
          .attr("text-anchor", leftOfLine ? "end" : "start").text(m.name() + " " + m.valueText());
    }
    return svg;
  }

  private static void bar(Element svg, Bar b, Scale x, int left, int y) {
    Element g = svg.appendElement("g").attr("class", "bar " + b.cssClass()).attr("data-name", b.name())
        .attr("data-value", Double.isFinite(b.value()) ? Double.toString(b.value()) : "failed");
    g.appendElement("text").attr("class", "name").attr("x", Integer.toString(left - 8))
        .attr("y", Integer.toString(y + 15)).attr("text-anchor", "end").text(b.name());
    if (!Double.isFinite(b.value())) {
      g.appendElement("text").attr("class", "value").attr("x", Integer.toString(left + 6))
          .attr("y", Integer.toString(y + 15)).text("failed");
      return;
    }
    // A value far below the axis's end still gets a visible sliver.
    double width = Math.max(1, x.at(b.value()) - left);
    g.appendElement("rect").attr("x", Integer.toString(left)).attr("y", Integer.toString(y))
        .attr("width", num(width)).attr("height", Integer.toString(BAR));
    g.appendElement("text").attr("class", "value").attr("x", num(left + width + 6))
        .attr("y", Integer.toString(y + 15)).text(b.valueText());
  }

  private static void axis(Element svg, Scale x, double step, int y, int top, String unit) {
    Element g = svg.appendElement("g").attr("class", "axis");
    int decimals = step >= 1 ? 0 : (int) Math.ceil(-Math.log10(step) - 1e-9);
    for (int i = 0; i * step <= x.end() + step * 1e-9; i++) {
      double at = x.at(i * step);
      g.appendElement("line").attr("class", "grid").attr("x1", num(at)).attr("x2", num(at))
          .attr("y1", Integer.toString(top)).attr("y2", Integer.toString(y + 4));
      g.appendElement("text").attr("x", num(at)).attr("y", Integer.toString(y + 17))
          .attr("text-anchor", "middle")
          .text(String.format(Locale.ROOT, "%,." + decimals + "f", i * step));
    }
    g.appendElement("line").attr("class", "base").attr("x1", num(x.left())).attr("x2", num(x.at(x.end())))
        .attr("y1", Integer.toString(y)).attr("y2", Integer.toString(y));
    g.appendElement("text").attr("class", "unit").attr("x", num(x.at(x.end() / 2)))
        .attr("y", Integer.toString(y + 36)).attr("text-anchor", "middle").text(unit);
  }

  /** The tick step for an axis up to {@code max}: 1, 2 or 5 times a power of ten, 4 to 10 ticks. */
  static double step(double max) {
    if (!(max > 0)) {
      return 1;
    }
    double base = Math.pow(10, Math.floor(Math.log10(max)) - 1);
    for (double m : new double[] {1, 2, 5, 10, 20}) {
      if (max / (base * m) <= 10) {
        return base * m;
      }
    }
    return base * 50;
  }

  /** Maps values from 0 to {@code end} onto {@code plot} pixels from {@code left}. */
  private record Scale(int left, int plot, double end) {
    double at(double value) {
      return left + Math.max(0, Math.min(1, value / end)) * plot;
    }
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
