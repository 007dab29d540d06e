package dev.dlock.jdbc;

import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A backend that keeps the grants of its latest renew call, in the order the engine sent them, and
 * is otherwise the backend it wraps. Why a dynamic proxy: it implements every interface the wrapped
 * backend does, so the engine finds the same capabilities and takes the same paths.
 */
final class RenewCalls {
  private final LockBackend backend;
  private volatile List<Grant> last = List.of();

  RenewCalls(LockBackend wrapped) {
    Set<Class<?>> interfaces = new LinkedHashSet<>();
    for (Class<?> c = wrapped.getClass(); c != null; c = c.getSuperclass()) {
      interfaces.addAll(List.of(c.getInterfaces()));
    }
    this.backend = (LockBackend) Proxy.newProxyInstance(wrapped.getClass().getClassLoader(),
        interfaces.toArray(new Class<?>[0]), (p, m, args) -> {
          if (m.getName().equals("renew") && args != null && args[0] instanceof Collection<?> grants) {
            List<Grant> seen = new ArrayList<>();
            grants.forEach(g -> seen.add((Grant) g));
            last = seen;
          }
          try {
            return m.invoke(wrapped, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  /** The wrapped backend, seen. */
  LockBackend backend() {
    return backend;
  }

  /** The grants of the latest renew call, in its order; empty before the first. */
  List<Grant> last() {
    return last;
  }
}
