package dev.dlock.bench.scale;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * A DataSource that counts the statements run through the connections it hands out: every
 * {@code execute…} call of a statement made by them. Why here, on the client: the embedded
 * PostgreSQL does not load pg_stat_statements, and pg_stat_database's counters reach the view
 * only when a backend flushes them, seconds later. Not counted: round trips that are no statement,
 * such as the pool's validity check of a connection that sat idle.
 */
final class CountingDataSource {
  private final LongAdder statements = new LongAdder();

  /**
   * {@code ds}, counting. It claims to wrap nothing, so dlock borrows through getConnection (bounded
   * by the pool's own connection timeout) rather than from the HikariCP pool it would unwrap.
   */
  DataSource wrap(DataSource ds) {
    return proxy(DataSource.class, ds);
  }

  /** Statements run so far. */
  long statements() {
    return statements.sum();
  }

  private <T> T proxy(Class<T> type, T target) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> {
      String name = m.getName();
      if (type == DataSource.class && name.equals("isWrapperFor")) {
        // dlock unwraps a HikariCP pool to borrow from it directly, which would bypass the count;
        // told it wraps nothing, it borrows through getConnection.
        return false;
      }
      if (Statement.class.isAssignableFrom(type) && name.startsWith("execute")) {
        statements.increment();
      }
      Object result;
      try {
        result = m.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      // unwrap and getConnection of a statement hand out the driver's own objects, uncounted:
      // dlock unwraps only to reach the driver's notification API.
      Class<?> returns = m.getReturnType();
      if (result != null && !name.equals("unwrap") && (returns == Connection.class
          || (Statement.class.isAssignableFrom(returns) && !Statement.class.isAssignableFrom(type)))) {
        return wrapAs(returns, result);
      }
      return result;
    }));
  }

  @SuppressWarnings("unchecked")
  private <T> Object wrapAs(Class<T> type, Object target) {
    return proxy(type, (T) target);
  }
}
