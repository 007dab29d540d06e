package dev.dlock.lab;

import java.util.concurrent.Callable;

/**
 * A hold with no fencing token and no way to learn that the lock was lost, as the articles' schemes
 * and several peers have neither. Why a class of its own: such schemes differ only in how they
 * release, so the release is the one thing it is given.
 */
final class PlainHeld implements Scheme.Held {
  private final Callable<String> release;

  PlainHeld(Callable<String> release) {
    this.release = release;
  }

  @Override
  public long token() {
    return -1;
  }

  @Override
  public boolean lost() {
    return false;
  }

  @Override
  public String release() throws Exception {
    return release.call();
  }
}
