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
 * helper thread is counted as well). It counts SQL statements too, as one {@code execute…} may send
 * several separated by ';', which the server runs one by one.
 */
final class CountingDataSource {
  private final Thread counted = Thread.currentThread();
  private final AtomicLong statements = new AtomicLong();
  private final AtomicLong sqlStatements = new AtomicLong();

  /** {@code ds}, counting; it claims to wrap nothing, so dlock does not unwrap a pool past the count. */
  DataSource wrap(DataSource ds) {
    return proxy(DataSource.class, ds, 0);
  }

  /** Statements run so far on the thread that made this. */
  long statements() {
    return statements.get();
  }

  /** SQL statements run so far on the thread that made this: an execute of "A; B" counts two. */
  long sqlStatements() {
    return sqlStatements.get();
  }

  /** The thread that made this, and the one that renews a large round's chunks beside it. */
  private boolean counts(Thread t) {
    return t == counted || t.getName().equals("dlock-renew-helper");
  }

  /** The statements in {@code sql}: dlock's SQL holds no ';' but between statements. */
  private static int pieces(String sql) {
    int n = 0;
    for (String piece : sql.split(";")) {
      n += piece.isBlank() ? 0 : 1;
    }
    return n;
  }

  /** {@code target}, counting; {@code sql} is what a prepared statement runs (0 for others). */
  private <T> T proxy(Class<T> type, T target, int sql) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> {
      String name = m.getName();
      if (type == DataSource.class && name.equals("isWrapperFor")) {
        return false;
      }
      if (Statement.class.isAssignableFrom(type) && name.startsWith("execute") && counts(Thread.currentThread())) {
        statements.incrementAndGet();
        sqlStatements.addAndGet(args != null && args.length > 0 && args[0] instanceof String text ? pieces(text) : sql);
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
      int prepared = name.startsWith("prepare") && args != null && args[0] instanceof String text ? pieces(text) : 0;
      return result != null && hands && !name.equals("unwrap") ? wrapped(returns, result, prepared) : result;
    }));
  }

  @SuppressWarnings("unchecked")
  private <T> Object wrapped(Class<T> type, Object target, int sql) {
    return proxy(type, (T) target, sql);
  }
}
