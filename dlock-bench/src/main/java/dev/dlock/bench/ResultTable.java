package dev.dlock.bench;

import dev.dlock.bench.targets.Targets;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders rows as an aligned text table for the terminal and as Markdown for notes. The ratio
 * column compares each row's ops/s with the baseline target's on the same workload, the next one
 * with the floor of the row's backend ({@link Targets#floorOf}; in W2-1c, the hand-off floor,
 * {@value Targets#HANDOFF_FLOOR}), and the last gives the bytes
 * allocated per operation where measured.
 */
public final class ResultTable {
  private final List<Row> rows;
  private final String baseline;

  /** @param baseline the target the ratio column divides by, usually the first one run */
  public ResultTable(List<Row> rows, String baseline) {
    this.rows = List.copyOf(rows);
    this.baseline = baseline;
  }

  /** The rows, in table order. */
  public List<Row> rows() {
    return rows;
  }

  private List<String> header() {
    return List.of("workload", "target", "threads", "ops/s", "p50", "p99", "ops/s vs " + baseline, "of floor",
        "B/op");
  }

  private List<List<String>> cells() {
    List<List<String>> all = new ArrayList<>();
    for (Row r : rows) {
      if (r.failure() != null) {
        all.add(List.of(r.workload().toString(), r.target(), Integer.toString(r.threads()), "failed", "-",
            "-", "-", "-", "-"));
        continue;
      }
      all.add(List.of(r.workload().toString(), r.target(), Integer.toString(r.threads()),
          String.format(Locale.ROOT, "%,.0f", r.opsPerSec()), time(r.p50Nanos()), time(r.p99Nanos()),
          ratio(r), ofFloor(r), Double.isNaN(r.allocBytesPerOp()) ? "-"
              : String.format(Locale.ROOT, "%,.0f", r.allocBytesPerOp())));
    }
    return all;
  }

  /** The aligned text form, header and separator first. */
  public String text() {
    List<List<String>> lines = new ArrayList<>();
    lines.add(header());
    lines.addAll(cells());
    int[] width = new int[header().size()];
    for (List<String> line : lines) {
      for (int c = 0; c < width.length; c++) {
        width[c] = Math.max(width[c], line.get(c).length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (int n = 0; n < lines.size(); n++) {
      List<String> line = lines.get(n);
      for (int c = 0; c < width.length; c++) {
        // Text columns to the left, numbers to the right, as a reader scans them.
        String fmt = c < 2 ? "%-" + width[c] + "s" : "%" + width[c] + "s";
        sb.append(c == 0 ? "" : " | ").append(String.format(fmt, line.get(c)));
      }
      sb.append('\n');
      if (n == 0) {
        for (int c = 0; c < width.length; c++) {
          sb.append(c == 0 ? "" : "-+-").append("-".repeat(width[c]));
        }
        sb.append('\n');
      }
    }
    return sb.toString();
  }

  /** The Markdown form, without a heading. */
  public String markdown() {
    StringBuilder sb = new StringBuilder();
    sb.append("| ").append(String.join(" | ", header())).append(" |\n");
    sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (List<String> line : cells()) {
      sb.append("| ").append(String.join(" | ", line)).append(" |\n");
    }
    return sb.toString();
  }

  private String ratio(Row r) {
    Row b = find(r.workload(), baseline);
    return b == null || !(b.opsPerSec() > 0) ? "-" : times(r.opsPerSec() / b.opsPerSec());
  }

  /**
   * The row's share of its floor: ops/s over the floor's; in W4, a latency, the other way round.
   * In W2-1c, a hand-off inside one client, the floor is the in-process one whatever the backend.
   */
  private String ofFloor(Row r) {
    String floor = r.workload() == Workload.W2_1C ? Targets.HANDOFF_FLOOR : Targets.floorOf(r.target());
    Row f = floor == null ? null : find(r.workload(), floor);
    if (f == null) {
      return "-";
    }
    double x = r.workload() == Workload.W4 ? f.p50Nanos() / r.p50Nanos() : r.opsPerSec() / f.opsPerSec();
    return Double.isFinite(x) && x > 0 ? times(x) : "-";
  }

  private Row find(Workload w, String target) {
    for (Row b : rows) {
      if (b.workload() == w && b.target().equals(target) && b.failure() == null) {
        return b;
      }
    }
    return null;
  }

  /** A ratio to two significant digits, as "0.85x". */
  private static String times(double x) {
    return BigDecimal.valueOf(x).round(new MathContext(2)).stripTrailingZeros().toPlainString() + "x";
  }

  /** The header, then one line of cells per row, as the text and Markdown forms show them. */
  List<List<String>> lines() {
    List<List<String>> lines = new ArrayList<>();
    lines.add(header());
    lines.addAll(cells());
    return lines;
  }

  /** Nanoseconds in the unit that keeps 2 to 4 significant digits. */
  static String time(double nanos) {
    if (nanos < 1_000) {
      return String.format(Locale.ROOT, "%.0f ns", nanos);
    }
    if (nanos < 1_000_000) {
      return String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
    }
    if (nanos < 1_000_000_000) {
      return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }
    return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
  }
}
