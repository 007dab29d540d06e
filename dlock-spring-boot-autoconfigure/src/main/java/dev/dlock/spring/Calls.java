package dev.dlock.spring;

import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockException;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;

/**
 * Runs {@link DistributedLock} methods: names the lock from the arguments, waits for it, passes the
 * lease in, and releases it when the method returns or throws.
 *
 * <p>Why a lost lease fails the call on release rather than being logged: the method's work was
 * not protected, and its caller is the one who can undo or retry it.
 */
final class Calls {
  private static final Logger log = LoggerFactory.getLogger(DistributedLock.class);

  private final Supplier<LockClient> client;
  private final BeanFactoryResolver beans;

  Calls(Supplier<LockClient> client, BeanFactory beanFactory) {
    this.client = client;
    this.beans = new BeanFactoryResolver(beanFactory);
  }

  @Nullable Object run(MethodSettings.Call s, Method method, MethodInvocation call) throws Throwable {
    String name = name(s, method, call.getArguments());
    dev.dlock.DistributedLock lock = switch (s.kind()) {
      case EXCLUSIVE -> s.lease() != null ? client.get().lock(name, s.lease()) : client.get().lock(name);
      case READ -> client.get().readWriteLock(name).readLock();
      case WRITE -> client.get().readWriteLock(name).writeLock();
    };
    Lease lease;
    try {
      if (s.onTimeout() == DistributedLock.OnTimeout.SKIP) {
        Optional<Lease> got = lock.tryAcquire(s.maxWait());
        if (got.isEmpty()) {
          log.debug("dlock: skipped {}: lock '{}' stayed held for {}", s.source(), name, s.maxWait());
          return s.returnsOptional() ? Optional.empty() : null;
        }
        lease = got.get();
      } else {
        lease = lock.acquire(s.maxWait());
      }
    } catch (InterruptedException e) {
      if (s.throwsInterrupted()) {
        throw e;
      }
      Thread.currentThread().interrupt();
      throw new LockException("interrupted while waiting for lock '" + name + "' for " + s.source(), e);
    }
    if (s.leaseParameter() >= 0) {
      call.getArguments()[s.leaseParameter()] = lease;
    }
    Lease outer = CurrentLease.enter(lease);
    @Nullable Object result;
    try {
      result = call.proceed();
    } catch (Throwable t) {
      CurrentLease.restore(outer);
      closeAfter(lease, t);
      throw t;
    }
    CurrentLease.restore(outer);
    lease.close();
    return result;
  }

  private String name(MethodSettings.Call s, Method method, Object[] args) {
    MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, method, args, MethodSettings.NAMES);
    context.setBeanResolver(beans);
    Object value = s.name().getValue(context);
    if (value == null) {
      throw new IllegalArgumentException(s.source() + ": name '" + s.name().getExpressionString()
          + "' gave null");
    }
    return value.toString();
  }

  /** Releases a lease after its method threw; a failure to release is added to what it threw. */
  private static void closeAfter(Lease lease, Throwable thrown) {
    try {
      lease.close();
    } catch (RuntimeException e) {
      thrown.addSuppressed(e);
    }
  }
}
