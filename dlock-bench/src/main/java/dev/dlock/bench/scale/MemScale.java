package dev.dlock.bench.scale;

import dev.dlock.spi.LockBackend;
import java.util.concurrent.atomic.AtomicInteger;

/** dlock's in-memory backend, for the smoke test: no server to count, so only times and the heap. */
final class MemScale implements ScaleBackend {
  private static final AtomicInteger SERVERS = new AtomicInteger();
  private final String url = "mem:scale-" + ProcessHandle.current().pid() + "-" + SERVERS.incrementAndGet();

  @Override
  public String name() {
    return "mem";
  }

  @Override
  public LockBackend open() {
    return ScaleBackend.openUrl(url);
  }

  @Override
  public String legend() {
    return "mem: dlock's in-memory backend in this JVM (its server's heap is counted with the client's).";
  }
}
