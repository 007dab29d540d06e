package dev.dlock.jdbc;

import java.io.IOException;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A database a test class starts, reachable by URL and as a DataSource. It is the class's JUnit
 * extension, {@code @RegisterExtension static final PostgresServer server = new PostgresServer();}:
 * it opens before the class's first test (and its {@code @BeforeAll} methods) and closes after the
 * last, so no test class writes that pair of methods itself.
 */
interface TestDatabase extends BeforeAllCallback, AfterAllCallback {
  /** A JDBC URL without a password. */
  String url();

  /** The password {@link #passwordUrl()} carries. */
  String SECRET = "s3cret";

  /** A JDBC URL of a user whose password is {@link #SECRET}, given in the URL. */
  String passwordUrl();

  /** A plain, unpooled DataSource. */
  DataSource dataSource() throws SQLException;

  /** A timestamp column type this database accepts but dlock must refuse. */
  String badTimestampType();

  /** Starts the server. */
  void open() throws Exception;

  /** Stops the server. */
  void close() throws Exception;

  @Override
  default void beforeAll(ExtensionContext context) throws Exception {
    open();
  }

  @Override
  default void afterAll(ExtensionContext context) throws Exception {
    close();
  }

  /** The first column of the first row of {@code sql}, as text. */
  default String query(String sql) throws SQLException {
    try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  /** A loopback port nothing listens on (it was free a moment ago). */
  static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Deletes the rows of lock {@code name} from dlock's default tables, as a database that lost them would. */
  default void forget(String name) throws SQLException {
    try (Connection c = dataSource().getConnection()) {
      for (String table : new String[] {"dlock_locks_waiters", "dlock_locks"}) {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE name = ?")) {
          ps.setString(1, name);
          ps.executeUpdate();
        }
      }
    }
  }

  /** Runs SQL as the test's own connection. */
  default void execute(String... statements) throws SQLException {
    try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }
}
