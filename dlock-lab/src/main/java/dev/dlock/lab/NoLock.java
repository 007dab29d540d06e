package dev.dlock.lab;

import java.time.Duration;

/**
 * The scheme {@code none}: every acquire succeeds at once and a release frees nothing. Why it is
 * here: the baseline that shows what the workloads do with no lock at all.
 */
final class NoLock implements Scheme {
  @Override
  public Held acquire(String lock, Duration lease, Duration wait) {
    return new PlainHeld(() -> "");
  }

  @Override
  public boolean fenced() {
    return false;
  }

  @Override
  public void close() {}
}
