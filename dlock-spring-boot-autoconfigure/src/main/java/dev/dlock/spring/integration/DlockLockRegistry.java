package dev.dlock.spring.integration;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A Spring Integration {@link LockRegistry} over one dlock {@link LockClient}, in place of
 * {@code JdbcLockRegistry} or {@code RedisLockRegistry}. {@link #obtain(Object)} returns the
 * client's watchdog-renewed lock ({@link LockClient#lock(String)}) named by the key's
 * {@code toString()}, so every registry on the same backend, in any JVM, excludes the others.
 *
 * <p>The locks are thread-owned and reentrant like {@code ReentrantLock}; {@code unlock()} from
 * another thread throws {@link IllegalMonitorStateException}, and {@code unlock()} after the lease
 * was lost throws {@link dev.dlock.LeaseLostException} (from {@code executeLocked} too), so the
 * caller learns that its work was not protected. The same {@link DistributedLock} also gives
 * {@code acquire()} and its {@link dev.dlock.Lease} with a fencing token.
 *
 * <p>Not implemented: {@code RenewableLockRegistry}, since the client's watchdog already renews
 * every held lease and a lease's length cannot be changed while held; {@code ExpirableLockRegistry},
 * since the registry keeps only locks still referenced and a free lock keeps nothing; and Spring's {@code DistributedLock} with a TTL per
 * call, for which {@code client.lock(name, leaseTime)} is dlock's fixed-lease lock.
 */
public final class DlockLockRegistry implements LockRegistry<DistributedLock> {
  // Why weak values, not a bounded cache: a view holds no state of its own (the client keeps one
  // state per name), so only identity is at stake. Weak values keep the same instance for as long
  // as any caller can still compare it, where a bound could evict one still in use, and they need
  // no size to tune.
  private final LockClient client;
  private final ConcurrentHashMap<String, Ref> locks = new ConcurrentHashMap<>();
  private final ReferenceQueue<DistributedLock> collected = new ReferenceQueue<>();

  /**
   * @param client the client whose locks this registry hands out; the registry does not close it
   * @throws IllegalArgumentException if {@code client} is null
   */
  public DlockLockRegistry(LockClient client) {
    if (client == null) {
      throw new IllegalArgumentException("client must not be null: null");
    }
    this.client = client;
  }

  /**
   * The watchdog-renewed lock named by {@code lockKey.toString()}: the same instance for keys with
   * the same string form while it is referenced.
   *
   * @throws IllegalArgumentException if {@code lockKey} is null or its string form is not a valid
   *     lock name for the client's backend (empty, too long, or with a lone surrogate)
   */
  @Override
  public DistributedLock obtain(Object lockKey) {
    String name = name(lockKey);
    Ref ref = locks.get(name);
    DistributedLock lock = ref == null ? null : ref.get();
    if (lock != null) {
      return lock;
    }
    purge();
    DistributedLock[] made = new DistributedLock[1];
    try {
      locks.compute(name, (key, old) -> {
        made[0] = old == null ? null : old.get();
        if (made[0] != null) {
          return old;
        }
        made[0] = client.lock(key);
        return new Ref(key, made[0], collected);
      });
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "lockKey '" + abbreviate(name) + "' is not a valid lock name: " + e.getMessage(), e);
    }
    return made[0];
  }

  private static String name(Object lockKey) {
    if (lockKey == null) {
      throw new IllegalArgumentException("lockKey must not be null: null");
    }
    String name = lockKey.toString();
    if (name == null) {
      throw new IllegalArgumentException(
          "lockKey of " + lockKey.getClass().getName() + " has a null toString()");
    }
    return name;
  }

  private void purge() {
    for (Object r; (r = collected.poll()) != null; ) {
      locks.remove(((Ref) r).name, r);
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }

  /** The number of names whose lock is cached; for tests. */
  int cached() {
    purge();
    return locks.size();
  }

  @Override
  public String toString() {
    return "DlockLockRegistry[" + client.id() + "]";
  }

  private static final class Ref extends WeakReference<DistributedLock> {
    final String name;

    Ref(String name, DistributedLock lock, ReferenceQueue<DistributedLock> queue) {
      super(lock, queue);
      this.name = name;
    }
  }
}
