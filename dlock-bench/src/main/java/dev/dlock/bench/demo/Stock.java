package dev.dlock.bench.demo;

/**
 * The shared stock count, standing in for a row in a database: one read and one write, with no
 * compare-and-set, as a naive service would do it. Volatile, so every read sees the last write and
 * any overselling comes from the read-then-write race alone, not from stale caches.
 */
final class Stock {
  private volatile int left;

  Stock(int initial) {
    this.left = initial;
  }

  int read() {
    return left;
  }

  void write(int value) {
    left = value;
  }
}
