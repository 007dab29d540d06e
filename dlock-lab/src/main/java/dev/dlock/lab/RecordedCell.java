package dev.dlock.lab;

import java.util.List;
import java.util.Locale;

/**
 * One line of a {@link LabRecord}: what a cell's runs showed, as plain values. Times are in
 * milliseconds; a value that was not measured is {@code NaN} here and {@code -} in the file.
 *
 * @param row               the matrix row ({@link Cell#row}), e.g. {@code S8} or {@code none (flash)}
 * @param fault             the fault id
 * @param runs              how many runs the cell had
 * @param verdict           the cell's verdict
 * @param violations        pairs of overlapping holds, summed
 * @param staleAccepted     stale writes the resource took, summed
 * @param staleRejected     stale writes the resource refused, summed
 * @param oversold          items oversold, summed
 * @param lostUpdates       lost updates, summed
 * @param foreignReleases   releases that freed another worker's lock, summed
 * @param deadlock          whether a run had no grant after a fault
 * @param worstRecoveryMs   the longest time from a fault's end to the next grant; {@code NaN} if none
 * @param grantsPerSecond   the runs' mean grants a second (items sold, in a flash sale)
 * @param wakeupsPerRelease wake-ups per release; {@code NaN} when none were logged
 * @param fenced            whether the grants carried fencing tokens
 */
public record RecordedCell(String row, String fault, int runs, Verdict verdict, int violations,
    int staleAccepted, int staleRejected, int oversold, int lostUpdates, int foreignReleases,
    boolean deadlock, double worstRecoveryMs, double grantsPerSecond, double wakeupsPerRelease,
    boolean fenced) {

  /** The file's column names, in order. */
  public static final List<String> COLUMNS = List.of("row", "fault", "runs", "verdict", "violations",
      "stale_accepted", "stale_rejected", "oversold", "lost_updates", "foreign_releases", "deadlock",
      "worst_recovery_ms", "grants_per_s", "wakeups_per_release", "fenced");

  /** Checks that the row and fault are named and carry no tab or line break. */
  public RecordedCell {
    plain("row", row);
    plain("fault", fault);
    if (verdict == null) {
      throw new IllegalArgumentException("cell " + row + " x " + fault + " has no verdict");
    }
  }

  /** The line of {@code cell}. */
  public static RecordedCell of(Cell cell) {
    boolean fenced = cell.runs().stream().flatMap(r -> r.events().stream())
        .anyMatch(e -> e.op().equals("acquire") && e.type().equals("ok") && e.token() >= 0);
    return new RecordedCell(cell.scheme(), cell.fault(), cell.runs().size(), cell.verdict(), cell.violations(),
        cell.staleAccepted(), cell.staleRejected(), cell.oversold(), cell.lostUpdates(), cell.foreignReleases(),
        cell.deadlock(), cell.recoveryNanos() < 0 ? Double.NaN : cell.recoveryNanos() / 1e6,
        cell.grantsPerSecond(), cell.wakeupsPerRelease(), fenced);
  }

  /** The row and fault as people write them: {@code S8 × F2}. */
  public String key() {
    return row + " × " + fault;
  }

  /** This line as tab-separated values, without a line break. */
  public String tsv() {
    return String.join("\t", row, fault, Integer.toString(runs), verdict.word(), Integer.toString(violations),
        Integer.toString(staleAccepted), Integer.toString(staleRejected), Integer.toString(oversold),
        Integer.toString(lostUpdates), Integer.toString(foreignReleases), Boolean.toString(deadlock),
        number(worstRecoveryMs, "%.1f"), number(grantsPerSecond, "%.1f"), number(wakeupsPerRelease, "%.2f"),
        Boolean.toString(fenced));
  }

  /**
   * Reads one line written by {@link #tsv}.
   *
   * @param where the file and line number, for the error messages
   * @throws IllegalArgumentException naming {@code where}, the column and the value that does not parse
   */
  public static RecordedCell parse(String line, String where) {
    String[] v = line.split("\t", -1);
    if (v.length != COLUMNS.size()) {
      throw new IllegalArgumentException(where + ": " + v.length + " columns, expected " + COLUMNS.size()
          + " (" + String.join(", ", COLUMNS) + "): '" + line + "'");
    }
    Values in = new Values(v, where);
    return new RecordedCell(v[0], v[1], in.count(2), in.verdict(3), in.count(4), in.count(5), in.count(6),
        in.count(7), in.count(8), in.count(9), in.bool(10), in.number(11), in.number(12), in.number(13),
        in.bool(14));
  }

  private static String number(double value, String format) {
    return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, format, value);
  }

  private static void plain(String name, String value) {
    if (value == null || value.isBlank() || value.contains("\t") || value.contains("\n") || value.contains("\r")) {
      throw new IllegalArgumentException(name + " must be named without tabs or line breaks, was '" + value + "'");
    }
  }

  /** Parses the columns of one line, each error naming the column and its value. */
  private record Values(String[] v, String where) {
    int count(int i) {
      try {
        int n = Integer.parseInt(v[i]);
        if (n >= 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw bad(i, "a count");
    }

    double number(int i) {
      if (v[i].equals("-")) {
        return Double.NaN;
      }
      try {
        double d = Double.parseDouble(v[i]);
        if (d >= 0 && !Double.isInfinite(d) && !Double.isNaN(d)) {
          return d;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw bad(i, "a number or -");
    }

    boolean bool(int i) {
      return switch (v[i]) {
        case "true" -> true;
        case "false" -> false;
        default -> throw bad(i, "true or false");
      };
    }

    Verdict verdict(int i) {
      for (Verdict verdict : Verdict.values()) {
        if (verdict.word().equals(v[i])) {
          return verdict;
        }
      }
      throw bad(i, "safe, unsafe or stuck");
    }

    private IllegalArgumentException bad(int i, String expected) {
      return new IllegalArgumentException(where + ": " + COLUMNS.get(i) + " is '" + v[i] + "', expected " + expected);
    }
  }
}
