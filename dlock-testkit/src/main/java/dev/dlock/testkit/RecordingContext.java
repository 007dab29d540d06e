package dev.dlock.testkit;

import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The engine's side of a backend, for tests that drive a backend's SPI directly, without a
 * client: it records the wake-ups and losses the backend reports, in order, and lets a test wait
 * for them. Thread-safe.
 */
public final class RecordingContext implements BackendContext {
  private final String clientId;
  private final LinkedBlockingQueue<String> released = new LinkedBlockingQueue<>();
  private final LinkedBlockingQueue<Grant> lost = new LinkedBlockingQueue<>();
  private final LinkedBlockingQueue<String> reconnects = new LinkedBlockingQueue<>();

  /**
   * @param clientId the client id the backend sees; without {@code ':'}
   */
  public RecordingContext(String clientId) {
    if (clientId.indexOf(':') >= 0) {
      throw new IllegalArgumentException("clientId must not contain ':': " + clientId);
    }
    this.clientId = clientId;
  }

  @Override
  public String clientId() {
    return clientId;
  }

  @Override
  public Ticker ticker() {
    return Ticker.system();
  }

  @Override
  public void released(String name) {
    released.add(name);
  }

  @Override
  public void lost(Grant grant, String reason) {
    lost.add(grant);
  }

  @Override
  public void reconnected(String why) {
    reconnects.add(why);
  }

  /** The reason of the next reconnect or failover the backend reported, or null if none came in time. */
  public String nextReconnect(Duration wait) throws InterruptedException {
    return reconnects.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** The next name this client was woken for, or null if none came within {@code wait}. */
  public String nextWakeUp(Duration wait) throws InterruptedException {
    return released.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** The next grant the backend reported lost, or null if none came within {@code wait}. */
  public Grant nextLoss(Duration wait) throws InterruptedException {
    return lost.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** The wake-ups not yet taken by {@link #nextWakeUp}, oldest first. */
  public List<String> pendingWakeUps() {
    return new ArrayList<>(released);
  }
}
