package dev.dlock.lab;

import java.util.concurrent.Callable;

/**
 * A hold of a lab-only scheme: no fencing token, and no way to learn that the lock was lost, as
 * the articles' schemes have neither. Why a class of its own: every lab scheme differs only in how
 * it releases, so the release is the one thing it is given.
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
