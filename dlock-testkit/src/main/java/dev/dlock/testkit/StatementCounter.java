package dev.dlock.testkit;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * Counts the statements run through the connections of a {@link DataSource} it wraps: each
 * {@code execute…} call of a statement those connections made, and the SQL statements in them, as
 * one call may send several separated by ';', which the server runs one by one. For tests and
 * benchmarks that hold a JDBC backend to a number of statements.
 *
 * <p>Why a proxy, on the client: the count is taken where the driver is called, so it sees every
 * statement dlock sends, and at once (PostgreSQL's own counters reach its views seconds later).
 * Why a thread filter: a client's inbox thread pings its connection when it likes, while a test
 * counts the work of its own thread. Not counted: round trips that are no statement, such as a
 * pool's check of a connection that sat idle. Thread-safe.
 */
public final class StatementCounter {
  private final Predicate<Thread> counts;
  private final LongAdder statements = new LongAdder();
  private final LongAdder sqlStatements = new LongAdder();

  private StatementCounter(Predicate<Thread> counts) {
    this.counts = counts;
  }

  /** A counter of the statements every thread runs. */
  public static StatementCounter onEveryThread() {
    return new StatementCounter(t -> true);
  }

  /**
   * A counter of the statements run on the calling thread, and on threads named one of
   * {@code alsoNamed} (a backend's helper threads that share the counted work).
   */
  public static StatementCounter onThisThread(String... alsoNamed) {
    Thread me = Thread.currentThread();
    Set<String> names = Set.of(alsoNamed);
    return new StatementCounter(t -> t == me || names.contains(t.getName()));
  }

  /**
   * {@code ds}, counting. It claims to wrap nothing, so dlock borrows through getConnection rather
   * than from the HikariCP pool it would otherwise unwrap, past the count.
   */
  public DataSource wrap(DataSource ds) {
    return proxy(DataSource.class, ds, 0);
  }

  /** The {@code execute…} calls counted so far. */
  public long statements() {
    return statements.sum();
  }

  /** The SQL statements counted so far: an execute of "A; B" counts two. */
  public long sqlStatements() {
    return sqlStatements.sum();
  }

  /** The statements in {@code sql}: dlock's SQL holds no ';' but between statements. */
  private static int pieces(String sql) {
    int n = 0;
    for (String piece : sql.split(";")) {
      n += piece.isBlank() ? 0 : 1;
    }
    return n;
  }

  /** {@code target}, counting; {@code sql} is how many statements a prepared one runs (0 for others). */
  private <T> T proxy(Class<T> type, T target, int sql) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> {
      String name = m.getName();
      if (type == DataSource.class && name.equals("isWrapperFor")) {
        return false;
      }
      if (Statement.class.isAssignableFrom(type) && name.startsWith("execute") && counts.test(Thread.currentThread())) {
        statements.increment();
        sqlStatements.add(args != null && args.length > 0 && args[0] instanceof String text ? pieces(text) : sql);
      }
      Object result;
      try {
        result = m.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      // unwrap, and a statement's getConnection, hand out the driver's own objects, uncounted:
      // dlock unwraps only to reach the driver's notification API.
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
