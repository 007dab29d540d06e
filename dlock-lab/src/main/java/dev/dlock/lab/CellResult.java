package dev.dlock.lab;

import java.util.List;

/**
 * The checker's findings for one run. It keeps the run's events (sorted by time) so the HTML report
 * can draw the run's timeline without reading the histories again.
 *
 * @param info             the run
 * @param violations       pairs of overlapping holds by different workers, read pairs excepted
 * @param overlapNanos     time during which two or more conflicting holds overlapped (a union)
 * @param staleAccepted    writes by a worker whose grant had been superseded, that the resource took
 * @param staleRejected    such writes that the resource rejected
 * @param oversold         items sold beyond the stock (flash)
 * @param lostUpdates      items sold whose decrement was lost (flash)
 * @param foreignReleases  releases that freed another worker's lock
 * @param recoveryNanos    the longest time from a fault window's end to the next grant; -1 if none
 * @param deadlock         whether some fault window was followed by no grant before the run ended
 * @param grants           {@code acquire ok} events
 * @param releases         {@code release ok} events
 * @param wakeups          {@code wake} events
 * @param grantsPerSecond  grants over the run's length; in a flash sale, items sold
 * @param verdict          what the run showed
 * @param events           the run's events, sorted by time
 */
public record CellResult(RunInfo info, int violations, long overlapNanos, int staleAccepted,
    int staleRejected, int oversold, int lostUpdates, int foreignReleases, long recoveryNanos,
    boolean deadlock, int grants, int releases, int wakeups, double grantsPerSecond,
    Verdict verdict, List<Event> events) {

  /** Copies the events so the result cannot change under a report. */
  public CellResult {
    events = List.copyOf(events);
  }

  /** Whether the run's grants carried fencing tokens ({@link Checker#fenced}). */
  public boolean fenced() {
    return Checker.fenced(events);
  }

  /** Wake-ups per release; {@code NaN} when no {@code wake} events were logged or nothing was released. */
  public double wakeupsPerRelease() {
    return wakeups == 0 || releases == 0 ? Double.NaN : (double) wakeups / releases;
  }
}
