package dev.dlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** A database a test class started, reachable by URL and as a DataSource. */
interface TestDatabase {
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

  /** Stops the server. */
  void close() throws Exception;

  /** Runs SQL as the test's own connection. */
  default void execute(String... statements) throws SQLException {
    try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }
}
