package dev.dlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/** A {@link DistributedLock}: a name, a kind and a lease mode over the engine, which holds all state. */
final class LockView implements DistributedLock {
  private static final long FOREVER = -1;
  private final Engine engine;
  private final Spec spec;

  LockView(Engine engine, Spec spec) {
    this.engine = engine;
    this.spec = spec;
  }

  @Override
  public String name() {
    return spec.name();
  }

  @Override
  public Lease acquire() throws InterruptedException {
    return new LeaseHandle(engine.acquireOrThrow(spec, FOREVER));
  }

  @Override
  public Lease acquire(Duration maxWait) throws InterruptedException {
    long nanos = Args.maxWait(maxWait).toNanos();
    return new LeaseHandle(engine.acquireOrThrow(spec, nanos));
  }

  @Override
  public Optional<Lease> tryAcquire() {
    return Optional.ofNullable(tryNow()).map(LeaseHandle::new);
  }

  @Override
  public Optional<Lease> tryAcquire(Duration maxWait) throws InterruptedException {
    long nanos = Args.maxWait(maxWait).toNanos();
    return Optional.ofNullable(engine.acquireOrNull(spec, nanos)).map(LeaseHandle::new);
  }

  @Override
  public int holdCount() {
    return engine.holdCount(spec);
  }

  @Override
  public void lock() {
    boolean interrupted = false;
    while (true) {
      try {
        engine.acquireOrThrow(spec, FOREVER);
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    engine.acquireOrThrow(spec, FOREVER);
  }

  @Override
  public boolean tryLock() {
    return tryNow() != null;
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    long nanos = Math.max(0, unit.toNanos(time));
    if (nanos > Args.MAX_WAIT.toNanos()) {
      nanos = FOREVER;
    }
    return engine.acquireOrNull(spec, nanos) != null;
  }

  @Override
  public void unlock() {
    engine.unlock(spec);
  }

  private @Nullable Hold tryNow() {
    return engine.tryNow(spec);
  }

  @Override
  public String toString() {
    return "DistributedLock[" + spec.name() + ", " + spec.kind() + ", " + engine + "]";
  }
}
