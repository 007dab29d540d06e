package dev.dlock.bench.scale;

import dev.dlock.LeaseLostException;
import dev.dlock.LockListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Times the client's renewal rounds. Why two sources: the engine's batch renew call is seen by
 * {@link TimedBackend} (start and return), and the engine's own work after it (extending each hold
 * and firing its event) ends with the last {@code renewed} event of the round, which this listener
 * sees. A round is complete when every grant the call carried has had its event; once a lease is
 * lost no round can renew them all, and {@link #awaitRound} says so at once.
 */
final class RenewalClock implements LockListener {
  /** One renewal round: the grants it carried, its backend call, and the call plus the engine's events. */
  record Round(int grants, long callNanos, long roundNanos) {}

  private final List<Round> rounds = new ArrayList<>();
  private long events;
  private long callStart;
  private long callEnd;
  private int callGrants;
  private long eventsAtStart;
  private boolean open;
  private long lost;
  private String firstLoss = "";

  synchronized void callStarted(int grants) {
    callStart = System.nanoTime();
    callGrants = grants;
    eventsAtStart = events;
    open = true;
  }

  synchronized void callEnded() {
    callEnd = System.nanoTime();
  }

  @Override
  public synchronized void renewed(String name, long token) {
    events++;
    if (open && events - eventsAtStart == callGrants) {
      open = false;
      rounds.add(new Round(callGrants, callEnd - callStart, System.nanoTime() - callStart));
      notifyAll();
    }
  }

  @Override
  public synchronized void lost(String name, long token, LeaseLostException reason) {
    if (lost++ == 0) {
      firstLoss = name + ": " + reason.getMessage();
    }
    notifyAll();
  }

  /** How many rounds have completed so far. */
  synchronized int completed() {
    return rounds.size();
  }

  /** The {@code index}-th completed round, counting from 0. */
  synchronized Round round(int index) {
    return rounds.get(index);
  }

  /**
   * The index of the first completed round at or after {@code from} that renewed exactly
   * {@code grants} grants, waiting for it.
   *
   * @throws IllegalStateException if none completes within {@code timeout}
   */
  synchronized int awaitRound(int from, int grants, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    int next = from;
    while (true) {
      for (; next < rounds.size(); next++) {
        if (rounds.get(next).grants() == grants) {
          return next;
        }
      }
      if (lost > 0) {
        // A lost lease is never renewed again, so no later round can carry them all.
        throw new IllegalStateException(lost + " lease(s) lost before a round renewed all " + grants
            + " (rounds too slow for the lease, or the machine paused?); the first: " + firstLoss);
      }
      long left = end - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException("no renewal round of " + grants + " lease(s) completed within "
            + timeout + "; rounds so far: " + rounds);
      }
      wait(Math.max(1, left / 1_000_000));
    }
  }
}
