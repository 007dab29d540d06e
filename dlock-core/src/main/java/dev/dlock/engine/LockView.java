package dev.dlock.engine;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/** A {@link DistributedLock}: a name, a kind and a lease mode over the engine, which holds all state. */
final class LockView implements DistributedLock {
  private static final long FOREVER = Args.NO_DEADLINE;
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
    return new LeaseHandle(engine.acquireOrThrow(spec, FOREVER), engine.release());
  }

  @Override
  public Lease acquire(Duration maxWait) throws InterruptedException {
    long nanos = Args.waitNanos(maxWait);
    return new LeaseHandle(engine.acquireOrThrow(spec, nanos), engine.release());
  }

  @Override
  public Optional<Lease> tryAcquire() {
    return Optional.ofNullable(tryNow()).map(this::handle);
  }

  @Override
  public Optional<Lease> tryAcquire(Duration maxWait) throws InterruptedException {
    long nanos = Args.waitNanos(maxWait);
    return Optional.ofNullable(engine.acquireOrNull(spec, nanos)).map(this::handle);
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
    return engine.acquireOrNull(spec, Args.waitNanos(time, unit)) != null;
  }

  @Override
  public void unlock() {
    engine.unlock(spec);
  }

  private Lease handle(Hold h) {
    return new LeaseHandle(h, engine.release());
  }

  private @Nullable Hold tryNow() {
    return engine.tryNow(spec);
  }

  @Override
  public String toString() {
    return "DistributedLock[" + spec.name() + ", " + spec.kind() + ", " + engine + "]";
  }
}
