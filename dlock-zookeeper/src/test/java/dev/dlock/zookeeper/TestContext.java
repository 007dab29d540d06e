package dev.dlock.zookeeper;

import dev.dlock.Ticker;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A backend context for tests that drive a backend without an engine; records what it is told. */
final class TestContext implements BackendContext {
  final String id;
  final List<String> released = new CopyOnWriteArrayList<>();
  final List<Grant> lost = new CopyOnWriteArrayList<>();

  TestContext(String id) {
    this.id = id;
  }

  @Override
  public String clientId() {
    return id;
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
}
