package dev.dlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a method of a Spring bean under a dlock lock named from its arguments.
 *
 * <pre>{@code
 * @DistributedLock(name = "'gear:' + #gear.id", maxWait = "PT5S")
 * Gear rebuild(Gear gear, Lease lease) {   // the lease is passed in; callers pass null
 *   return cache.put(gear, lease.token());
 * }
 * }</pre>
 *
 * <p>The name is a SpEL expression over the method's parameters ({@code #gear}, or {@code #p0}),
 * with {@code @bean} references. A parameter of type {@link dev.dlock.Lease} receives the lease.
 * Calls on one thread reenter, as dlock locks do. The annotation works on the beans Spring AOP
 * proxies, so a call from inside the same bean is not locked. A bad attribute fails the
 * application's start, naming the method and the value.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

  /** A SpEL expression over the parameters that gives the lock's name. */
  String name();

  /**
   * How long to wait for the lock; empty means {@code dlock.wait}. (Not {@code wait}, which Java
   * keeps for {@code Object.wait}.)
   */
  String maxWait() default "";

  /**
   * A fixed lease that no watchdog renews, for work with a known bound; empty means the watchdog
   * lease of {@code dlock.lease-time}, renewed while the method runs. Only for {@link Kind#EXCLUSIVE}.
   */
  String lease() default "";

  /** Which lock to take. */
  Kind kind() default Kind.EXCLUSIVE;

  /** What a wait that runs out does. */
  OnTimeout onTimeout() default OnTimeout.THROW;

  /** The kinds of lock a method can take. */
  enum Kind {
    /** {@link dev.dlock.LockClient#lock(String)}. */
    EXCLUSIVE,
    /** The read side of {@link dev.dlock.LockClient#readWriteLock(String)}. */
    READ,
    /** The write side of {@link dev.dlock.LockClient#readWriteLock(String)}. */
    WRITE
  }

  /** What a wait that runs out does. */
  enum OnTimeout {
    /** Throws {@link dev.dlock.LockTimeoutException}, naming the lock and its holder. */
    THROW,
    /**
     * Skips the call: it returns null, or an empty {@code Optional}. Not for methods that return
     * a primitive.
     */
    SKIP
  }
}
