package dev.dlock.jdbc;

import dev.dlock.Ticker;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** The engine's side of a backend, for tests that drive the SPI directly: records wake-ups. */
final class TestContext implements BackendContext {
  private final String clientId;
  private final LinkedBlockingQueue<String> released = new LinkedBlockingQueue<>();

  TestContext(String clientId) {
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
    // The lease backend never reports losses on its own.
  }

  /** The next name this client was woken for, or null if none came within {@code wait}. */
  String nextWakeUp(Duration wait) throws InterruptedException {
    return released.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
  }
}
