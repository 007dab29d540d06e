package dev.dlock.lab;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The report for a terminal: a matrix of verdicts to see at a glance, then one line of numbers per
 * cell. Columns are padded to their widest value and only ASCII is printed, so it reads the same in
 * any terminal, log file or CI console.
 */
public final class TerminalReport {
  /** The matrix's columns: no fault, then faults of a worker, of the server, of the clock. */
  static final List<String> FAULT_ORDER = List.of("none", "F1", "F1-gap", "F2", "F3", "F3-aof", "F4", "F5",
      "F5-holder", "F6", "F6-maj", "F6-min", "F7", "F8", "skew");

  private TerminalReport() {}

  /** The matrix (schemes by faults) and the detail table for {@code cells}. */
  public static String render(List<Cell> cells) {
    StringBuilder out = new StringBuilder();
    List<String> schemes = schemes(cells);
    List<String> faults = faults(cells);
    List<List<String>> matrix = new ArrayList<>();
    List<String> head = new ArrayList<>();
    head.add("scheme");
    head.addAll(faults);
    matrix.add(head);
    for (String scheme : schemes) {
      List<String> row = new ArrayList<>();
      row.add(scheme);
      for (String fault : faults) {
        Cell cell = find(cells, scheme, fault);
        row.add(cell == null ? "-" : key(cell));
      }
      matrix.add(row);
    }
    table(out, matrix);
    out.append("key: v= violations, s= stale writes accepted, o= oversold, l= lost updates,"
        + " f= foreign releases; - not run; no token: the grants had no fencing token\n\n");

    List<List<String>> detail = new ArrayList<>();
    detail.add(List.of("scheme", "fault", "runs", "viol", "overlap-ms", "stale-acc/rej", "oversold",
        "lost", "foreign", "recovery-ms", "wake/rel", "grants/s", "verdict"));
    for (Cell c : cells) {
      detail.add(List.of(c.scheme(), c.fault(), Integer.toString(c.runs().size()),
          Integer.toString(c.violations()), ms(c.overlapNanos()),
          fence(c), Integer.toString(c.oversold()),
          Integer.toString(c.lostUpdates()), Integer.toString(c.foreignReleases()), recovery(c),
          ratio(c.wakeupsPerRelease()), String.format(Locale.ROOT, "%.1f", c.grantsPerSecond()),
          c.verdict().word()));
    }
    table(out, detail);
    return out.toString();
  }

  /** The matrix entry of {@code cell}: its verdict word and the number that explains it. */
  static String key(Cell cell) {
    Verdict v = cell.verdict();
    if (v == Verdict.UNSAFE) {
      if (cell.staleAccepted() > 0) {
        return "unsafe s=" + cell.staleAccepted();
      }
      if (cell.oversold() > 0) {
        return "unsafe o=" + cell.oversold();
      }
      if (cell.lostUpdates() > 0) {
        return "unsafe l=" + cell.lostUpdates();
      }
      if (cell.foreignReleases() > 0) {
        return "unsafe f=" + cell.foreignReleases();
      }
      return "unsafe v=" + cell.violations();
    }
    if (v == Verdict.SAFE && cell.violations() > 0) {
      return "safe v=" + cell.violations(); // fenced: the holders overlapped, the resource held
    }
    return v.word();
  }

  /**
   * The fenced resource's column: stale writes accepted/rejected, or {@code no token} when the
   * cell's grants carried none, since nothing could then reject a stale write.
   */
  static String fence(Cell cell) {
    return cell.fenced() ? cell.staleAccepted() + "/" + cell.staleRejected() : "no token";
  }

  /** The schemes of {@code cells} in first-seen order. */
  static List<String> schemes(List<Cell> cells) {
    Set<String> seen = new LinkedHashSet<>();
    cells.forEach(c -> seen.add(c.scheme()));
    return new ArrayList<>(seen);
  }

  /** The faults of {@code cells}, in the order of {@link #FAULT_ORDER}, then any others as first seen. */
  static List<String> faults(List<Cell> cells) {
    Set<String> seen = new LinkedHashSet<>();
    cells.forEach(c -> seen.add(c.fault()));
    List<String> ordered = new ArrayList<>(seen);
    ordered.sort(Comparator.comparingInt(f -> FAULT_ORDER.contains(f) ? FAULT_ORDER.indexOf(f) : FAULT_ORDER.size()));
    return ordered;
  }

  /** The first cell of {@code scheme} and {@code fault}, or null. */
  static Cell find(List<Cell> cells, String scheme, String fault) {
    for (Cell c : cells) {
      if (c.scheme().equals(scheme) && c.fault().equals(fault)) {
        return c;
      }
    }
    return null;
  }

  /** Nanoseconds as milliseconds with one decimal. */
  static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
  }

  /** The recovery of {@code cell}: {@code never} on deadlock, {@code -} when none was measured. */
  static String recovery(Cell cell) {
    if (cell.deadlock()) {
      return "never";
    }
    return cell.recoveryNanos() < 0 ? "-" : ms(cell.recoveryNanos());
  }

  /** A ratio with two decimals, {@code -} for NaN. */
  static String ratio(double value) {
    return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.2f", value);
  }

  private static void table(StringBuilder out, List<List<String>> rows) {
    int columns = rows.get(0).size();
    int[] width = new int[columns];
    for (List<String> row : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], ascii(row.get(i)).length());
      }
    }
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        String text = ascii(row.get(i));
        line.append(text).append(" ".repeat(width[i] - text.length()));
        if (i < columns - 1) {
          line.append("  ");
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
  }

  private static String ascii(String text) {
    StringBuilder b = new StringBuilder(text.length());
    for (char ch : text.toCharArray()) {
      b.append(ch >= 32 && ch < 127 ? ch : '?');
    }
    return b.toString();
  }
}
