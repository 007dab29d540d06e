package dev.dlock.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * A DataSource that counts the statements its connections run (each {@code execute…} call) on the
 * thread that made it, for tests that hold the backend to a number of statements. Why a proxy: the
 * count is taken where the driver is called, so it sees every statement dlock sends. Why one
 * thread: the inbox's thread pings its connection when it likes, while the test's own thread runs
 * the work under test (with {@code VirtualTime}, the renewal rounds too, whose second connection's
 * helper thread is counted as well).
 */
final class CountingDataSource {
  private final Thread counted = Thread.currentThread();
  private final AtomicLong statements = new AtomicLong();

  /** {@code ds}, counting; it claims to wrap nothing, so dlock does not unwrap a pool past the count. */
  DataSource wrap(DataSource ds) {
    return proxy(DataSource.class, ds);
  }

  /** Statements run so far on the thread that made this. */
  long statements() {
    return statements.get();
  }

  /** The thread that made this, and the one that renews a large round's chunks beside it. */
  private boolean counts(Thread t) {
    return t == counted || t.getName().equals("dlock-renew-helper");
  }

  private <T> T proxy(Class<T> type, T target) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> {
      String name = m.getName();
      if (type == DataSource.class && name.equals("isWrapperFor")) {
        return false;
      }
      if (Statement.class.isAssignableFrom(type) && name.startsWith("execute") && counts(Thread.currentThread())) {
        statements.incrementAndGet();
      }
      Object result;
      try {
        result = m.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      Class<?> returns = m.getReturnType();
      boolean hands = returns == Connection.class
          || (Statement.class.isAssignableFrom(returns) && !Statement.class.isAssignableFrom(type));
      return result != null && hands && !name.equals("unwrap") ? wrapped(returns, result) : result;
    }));
  }

  @SuppressWarnings("unchecked")
  private <T> Object wrapped(Class<T> type, Object target) {
    return proxy(type, (T) target);
  }
}
