package dev.dlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** A {@link DistributedLock}: a name and a lease mode over the engine, which holds all state. */
final class LockView implements DistributedLock {
  private static final long FOREVER = -1;
  private final Engine engine;
  private final String name;
  private final Duration lease;
  private final boolean renew;

  LockView(Engine engine, String name, Duration lease, boolean renew) {
    this.engine = engine;
    this.name = name;
    this.lease = lease;
    this.renew = renew;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Lease acquire() throws InterruptedException {
    return new LeaseHandle(engine.acquireOrThrow(name, lease, renew, FOREVER));
  }

  @Override
  public Lease acquire(Duration maxWait) throws InterruptedException {
    long nanos = Args.maxWait(maxWait).toNanos();
    return new LeaseHandle(engine.acquireOrThrow(name, lease, renew, nanos));
  }

  @Override
  public Optional<Lease> tryAcquire() {
    return Optional.ofNullable(tryNow()).map(LeaseHandle::new);
  }

  @Override
  public Optional<Lease> tryAcquire(Duration maxWait) throws InterruptedException {
    long nanos = Args.maxWait(maxWait).toNanos();
    return Optional.ofNullable(engine.acquireOrNull(name, lease, renew, nanos)).map(LeaseHandle::new);
  }

  @Override
  public int holdCount() {
    return engine.holdCount(name);
  }

  @Override
  public void lock() {
    boolean interrupted = false;
    while (true) {
      try {
        engine.acquireOrThrow(name, lease, renew, FOREVER);
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
    engine.acquireOrThrow(name, lease, renew, FOREVER);
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
    return engine.acquireOrNull(name, lease, renew, nanos) != null;
  }

  @Override
  public void unlock() {
    engine.unlock(name);
  }

  private Hold tryNow() {
    return engine.tryNow(name, lease, renew);
  }

  @Override
  public String toString() {
    return "DistributedLock[" + name + ", " + engine + "]";
  }
}
