package dev.dlock.bench.scale;

import dev.dlock.spi.LockBackend;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * A backend that tells a {@link RenewalClock} when each batch renew call starts and returns, and
 * otherwise is the backend it wraps. Why a dynamic proxy: it implements every interface the wrapped
 * backend does, so the engine finds the same optional capabilities (hand-off, waits at the
 * server) that it would find on the backend itself and takes the same paths.
 */
final class TimedBackend implements InvocationHandler {
  private final LockBackend backend;
  private final RenewalClock clock;

  private TimedBackend(LockBackend backend, RenewalClock clock) {
    this.backend = backend;
    this.clock = clock;
  }

  static LockBackend wrap(LockBackend backend, RenewalClock clock) {
    Set<Class<?>> interfaces = new LinkedHashSet<>();
    for (Class<?> c = backend.getClass(); c != null; c = c.getSuperclass()) {
      interfaces.addAll(java.util.List.of(c.getInterfaces()));
    }
    return (LockBackend) Proxy.newProxyInstance(backend.getClass().getClassLoader(),
        interfaces.toArray(new Class<?>[0]), new TimedBackend(backend, clock));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    boolean renew = method.getName().equals("renew") && args != null && args.length == 2
        && args[0] instanceof Collection<?>;
    if (renew) {
      clock.callStarted(((Collection<?>) args[0]).size());
    }
    try {
      return method.invoke(backend, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    } finally {
      if (renew) {
        clock.callEnded();
      }
    }
  }
}
