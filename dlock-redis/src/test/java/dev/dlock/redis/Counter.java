package dev.dlock.redis;

import dev.dlock.LockListener;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts one client's events and lets a test wait for them without sleeping. */
final class Counter implements LockListener {
  private final ConcurrentHashMap<String, AtomicInteger> counts = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Semaphore> arrivals = new ConcurrentHashMap<>();

  @Override
  public void acquired(String name, long token, Duration waited) {
    count("acquired");
  }

  @Override
  public void released(String name, long token, Duration held) {
    count("released");
  }

  @Override
  public void renewed(String name, long token) {
    count("renewed");
  }

  @Override
  public void waited(String name) {
    count("waited");
  }

  @Override
  public void woken(String name) {
    count("woken");
  }

  int get(String kind) {
    return counts.computeIfAbsent(kind, k -> new AtomicInteger()).get();
  }

  /** Waits for {@code n} more events of a kind than were awaited before; false on timeout. */
  boolean await(String kind, int n, Duration timeout) throws InterruptedException {
    return arrivals.computeIfAbsent(kind, k -> new Semaphore(0))
        .tryAcquire(n, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void count(String kind) {
    counts.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
    arrivals.computeIfAbsent(kind, k -> new Semaphore(0)).release();
  }
}
