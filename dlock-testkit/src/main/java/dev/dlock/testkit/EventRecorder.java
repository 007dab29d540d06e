package dev.dlock.testkit;

import dev.dlock.LeaseLostException;
import dev.dlock.LockListener;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * Counts one client's listener events per kind and lock name, so tests can wait for "the thread is
 * now waiting" or check "one wake-up per release" without sleeping. Listener calls arrive on lock
 * threads and must not block, so recording is a short synchronized update.
 */
final class EventRecorder implements LockListener {

  enum Kind { ACQUIRED, RELEASED, RENEWED, LOST, WAITED, WOKEN }

  private final Map<Kind, Map<String, Integer>> counts = new EnumMap<>(Kind.class);

  private synchronized void record(Kind kind, String name) {
    counts.computeIfAbsent(kind, k -> new HashMap<>()).merge(name, 1, Integer::sum);
    notifyAll();
  }

  synchronized int count(Kind kind, String name) {
    return counts.getOrDefault(kind, Map.of()).getOrDefault(name, 0);
  }

  /** Blocks until {@code kind} was seen at least {@code atLeast} times for {@code name}. */
  synchronized void awaitCount(Kind kind, String name, int atLeast, Duration timeout)
      throws InterruptedException {
    long deadline = Ticker.system().read() + timeout.toNanos();
    while (count(kind, name) < atLeast) {
      long left = deadline - Ticker.system().read();
      if (left <= 0) {
        throw new AssertionError(String.format(
            "expected at least %d %s event(s) for lock '%s' within %s, saw %d (all events: %s)",
            atLeast, kind, name, timeout, count(kind, name), counts));
      }
      // wait(ms) with at least 1 ms, since wait(0) would mean forever.
      wait(Math.max(1, left / 1_000_000));
    }
  }

  @Override
  public void acquired(String name, long token, Duration waited) {
    record(Kind.ACQUIRED, name);
  }

  @Override
  public void released(String name, long token, Duration held) {
    record(Kind.RELEASED, name);
  }

  @Override
  public void renewed(String name, long token) {
    record(Kind.RENEWED, name);
  }

  @Override
  public void lost(String name, long token, LeaseLostException reason) {
    record(Kind.LOST, name);
  }

  @Override
  public void waited(String name) {
    record(Kind.WAITED, name);
  }

  @Override
  public void woken(String name) {
    record(Kind.WOKEN, name);
  }

  @Override
  public synchronized String toString() {
    return "EventRecorder" + counts;
  }
}
