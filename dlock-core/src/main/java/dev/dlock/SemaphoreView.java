package dev.dlock;

import java.time.Duration;
import java.util.Optional;

/** A {@link DistributedSemaphore}: a name and a permit count over the engine, which holds all state. */
final class SemaphoreView implements DistributedSemaphore {
  private final Engine engine;
  private final Spec spec;

  SemaphoreView(Engine engine, Spec spec) {
    this.engine = engine;
    this.spec = spec;
  }

  @Override
  public String name() {
    return spec.name();
  }

  @Override
  public int permits() {
    return spec.permits();
  }

  @Override
  public Lease acquire() throws InterruptedException {
    return new LeaseHandle(engine.acquireOrThrow(spec, -1));
  }

  @Override
  public Lease acquire(Duration maxWait) throws InterruptedException {
    return new LeaseHandle(engine.acquireOrThrow(spec, Args.maxWait(maxWait).toNanos()));
  }

  @Override
  public Optional<Lease> tryAcquire() {
    return Optional.ofNullable(engine.tryNow(spec)).map(LeaseHandle::new);
  }

  @Override
  public Optional<Lease> tryAcquire(Duration maxWait) throws InterruptedException {
    return Optional.ofNullable(engine.acquireOrNull(spec, Args.maxWait(maxWait).toNanos()))
        .map(LeaseHandle::new);
  }

  @Override
  public String toString() {
    return "DistributedSemaphore[" + spec.name() + ", " + spec.permits() + " permits, " + engine + "]";
  }
}
