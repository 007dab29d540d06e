package dev.dlock.engine;

import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker the test moves by hand, so lease arithmetic is checked without sleeping. */
final class FakeTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Override
  public long read() {
    return nanos.get();
  }

  void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }
}
