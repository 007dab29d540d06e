package dev.dlock.bench;

import java.util.Arrays;

/** A growable list of nanosecond samples with nearest-rank percentiles. Not thread-safe. */
public final class LongSamples {
  private long[] values = new long[1024];
  private int size;
  private boolean sorted = true;

  public void add(long value) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = value;
    sorted = false;
  }

  /** Appends all of {@code other}'s samples. */
  public void addAll(LongSamples other) {
    for (int i = 0; i < other.size; i++) {
      add(other.values[i]);
    }
  }

  public int size() {
    return size;
  }

  /**
   * The smallest sample that at least {@code p} percent of the samples do not exceed.
   *
   * @throws IllegalStateException if there are no samples
   */
  public long percentile(double p) {
    if (size == 0) {
      throw new IllegalStateException("no samples");
    }
    if (!sorted) {
      Arrays.sort(values, 0, size);
      sorted = true;
    }
    int rank = (int) Math.ceil(p / 100.0 * size);
    return values[Math.min(size, Math.max(1, rank)) - 1];
  }
}
