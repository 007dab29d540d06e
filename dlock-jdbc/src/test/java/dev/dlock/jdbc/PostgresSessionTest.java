package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.testkit.RecordingContext;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresSessionTest extends SessionLockCases {
  @RegisterExtension
  static final PostgresServer server = new PostgresServer();

  /**
   * A DataSource that is not HikariCP (here, one that lends the same connection every time and
   * ignores close, as a pool would keep it) gets its connection back with the read timeout it
   * had, so the application's own long statements on it are not cut off by dlock's.
   */
  @Test
  void aConnectionOfAnotherPoolGoesBackWithItsOwnReadTimeout() throws Exception {
    try (Connection real = DriverManager.getConnection(server.url())) {
      real.setNetworkTimeout(Runnable::run, 123_456);
      Connection lent = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
          new Class<?>[] {Connection.class},
          (proxy, m, args) -> m.getName().equals("close") ? null : invoke(m, real, args));
      DataSource pool = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
          new Class<?>[] {DataSource.class}, (proxy, m, args) -> switch (m.getName()) {
            case "getConnection" -> lent;
            case "isWrapperFor" -> false;
            default -> throw new UnsupportedOperationException(m.getName());
          });
      LockBackend backend = JdbcLockBackend.builder().dataSource(pool).session().build();
      try {
        backend.start(new RecordingContext("a"));
        Attempt a = backend.tryAcquire(LockRequest.exclusive("lent", "a:1", Duration.ofSeconds(30), false));
        assertThat(a.isGranted()).isTrue();
        assertThat(backend.release(new Grant("lent", "a:1", a.token()))).isTrue();
      } finally {
        backend.close();
      }
      assertThat(real.getNetworkTimeout()).isEqualTo(123_456);
    }
  }

  private static Object invoke(Method m, Object target, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  TestDatabase db() {
    return server;
  }

  @Override
  String sessionUrl() {
    return server.url() + "&dlockMode=session";
  }

  @Override
  int waitingSessions(Statement s) throws SQLException {
    return queryInt(s, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
  }

  @Override
  void killHolder(Statement s, String name) throws SQLException {
    int killed = queryInt(s, "SELECT count(pg_terminate_backend(pid)) FROM pg_locks"
        + " WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()");
    if (killed != 1) {
      throw new AssertionError("expected one holder of an advisory lock, found " + killed);
    }
  }
}
