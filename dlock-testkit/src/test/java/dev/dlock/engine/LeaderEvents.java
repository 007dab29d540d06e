package dev.dlock.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LeaderListener;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Records each leader callback as "elected", "lost" or "resigned" with the token, for the latch tests. */
final class LeaderEvents implements LeaderListener {
  private static final Duration PATIENCE = Duration.ofSeconds(10);
  private final BlockingQueue<String> events = new LinkedBlockingQueue<>();

  @Override
  public void elected(Lease lease) {
    events.add("elected " + lease.token());
  }

  @Override
  public void lost(Lease lease, LeaseLostException reason) {
    events.add("lost " + lease.token());
  }

  @Override
  public void resigned(Lease lease) {
    events.add("resigned " + lease.token());
  }

  /** The next event, which must come within ten seconds. */
  String next() throws InterruptedException {
    String e = events.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(e).as("a leader event within %s", PATIENCE).isNotNull();
    return e;
  }

  /** Whether no event is waiting. */
  boolean isEmpty() {
    return events.isEmpty();
  }
}
