package dev.dlock.lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * All runs of one scheme under one fault: one cell of the report's matrix. Counts are summed over
 * the runs and times take the worst run, because a cell must show a failure any run had, not an
 * average that hides it.
 *
 * @param scheme the matrix row: the scheme id, with its workload unless that is the critical section ({@link #row})
 * @param fault  the fault id
 * @param runs   the runs' results, at least one
 */
public record Cell(String scheme, String fault, List<CellResult> runs) {

  /** Checks that there is a run and that every run is of this scheme and fault. */
  public Cell {
    runs = List.copyOf(runs);
    if (runs.isEmpty()) {
      throw new IllegalArgumentException("cell " + scheme + " x " + fault + " has no runs");
    }
    for (CellResult r : runs) {
      if (!row(r.info()).equals(scheme) || !r.info().fault().equals(fault)) {
        throw new IllegalArgumentException("run " + r.info().scheme() + " x " + r.info().fault()
            + " does not belong to cell " + scheme + " x " + fault);
      }
    }
  }

  /** The results grouped by scheme and fault, cells in the order their first run appears. */
  public static List<Cell> group(List<CellResult> results) {
    Map<List<String>, List<CellResult>> byKey = new LinkedHashMap<>();
    for (CellResult r : results) {
      byKey.computeIfAbsent(List.of(row(r.info()), r.info().fault()), k -> new ArrayList<>()).add(r);
    }
    List<Cell> cells = new ArrayList<>();
    byKey.forEach((key, runs) -> cells.add(new Cell(key.get(0), key.get(1), runs)));
    return cells;
  }

  /**
   * The matrix row of a run: its scheme, and its workload when that is not the critical section,
   * since one scheme may run both ({@code none} and {@code none (flash)}).
   */
  public static String row(RunInfo info) {
    return info.workload().equals("critical") ? info.scheme() : info.scheme() + " (" + info.workload() + ")";
  }

  /** The scheme id of a row made by {@link #row}. */
  public static String schemeOf(String row) {
    int space = row.indexOf(' ');
    return space < 0 ? row : row.substring(0, space);
  }

  /** Violations summed over the runs. */
  public int violations() {
    return runs.stream().mapToInt(CellResult::violations).sum();
  }

  /** Overlap time summed over the runs. */
  public long overlapNanos() {
    return runs.stream().mapToLong(CellResult::overlapNanos).sum();
  }

  /** Stale writes accepted, summed. */
  public int staleAccepted() {
    return runs.stream().mapToInt(CellResult::staleAccepted).sum();
  }

  /** Stale writes rejected, summed. */
  public int staleRejected() {
    return runs.stream().mapToInt(CellResult::staleRejected).sum();
  }

  /** Whether any run's grants carried fencing tokens; if none did, stale writes had nothing to reject them. */
  public boolean fenced() {
    return runs.stream().anyMatch(CellResult::fenced);
  }

  /** Items oversold, summed. */
  public int oversold() {
    return runs.stream().mapToInt(CellResult::oversold).sum();
  }

  /** Lost updates, summed. */
  public int lostUpdates() {
    return runs.stream().mapToInt(CellResult::lostUpdates).sum();
  }

  /** Releases that freed another worker's lock, summed. */
  public int foreignReleases() {
    return runs.stream().mapToInt(CellResult::foreignReleases).sum();
  }

  /** The longest recovery of any run; -1 when no run measured one. */
  public long recoveryNanos() {
    return runs.stream().mapToLong(CellResult::recoveryNanos).max().orElse(-1);
  }

  /** Whether any run deadlocked. */
  public boolean deadlock() {
    return runs.stream().anyMatch(CellResult::deadlock);
  }

  /** Grants, summed. */
  public int grants() {
    return runs.stream().mapToInt(CellResult::grants).sum();
  }

  /** Releases, summed. */
  public int releases() {
    return runs.stream().mapToInt(CellResult::releases).sum();
  }

  /** Wake-ups, summed. */
  public int wakeups() {
    return runs.stream().mapToInt(CellResult::wakeups).sum();
  }

  /** Wake-ups per release over all runs; {@code NaN} when none were logged. */
  public double wakeupsPerRelease() {
    int wakeups = wakeups();
    int releases = releases();
    return wakeups == 0 || releases == 0 ? Double.NaN : (double) wakeups / releases;
  }

  /** The mean of the runs' grants per second. */
  public double grantsPerSecond() {
    return runs.stream().mapToDouble(CellResult::grantsPerSecond).average().orElse(0);
  }

  /** The worst verdict of the runs: unsafe over stuck over safe. */
  public Verdict verdict() {
    Verdict worst = Verdict.SAFE;
    for (CellResult r : runs) {
      worst = worst.worst(r.verdict());
    }
    return worst;
  }

  /** The run the report draws: the first with a violation, else the first. */
  public CellResult shown() {
    return runs.stream().filter(r -> r.violations() > 0).findFirst().orElse(runs.get(0));
  }
}
