package dev.dlock.lab;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The shared objects the workers protect, in one SQL database (the coordinator's H2 file served
 * with AUTO_SERVER): a fenced resource {@code lab_fence} and the flash sale's stock row
 * {@code lab_stock}. Why a database: every worker JVM sees one copy, and one UPDATE decides a
 * fenced write atomically, so the resource itself judges stale tokens.
 */
public final class Resource {
  private Resource() {}

  /** Creates both tables if missing and resets them: no token seen, no write, {@code stock} items. */
  public static void reset(Connection c, int stock) throws SQLException {
    if (stock < 0) {
      throw new IllegalArgumentException("stock must be 0 or more, was " + stock);
    }
    try (Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS lab_fence(id INT PRIMARY KEY, max_token BIGINT, writes BIGINT)");
      s.execute("CREATE TABLE IF NOT EXISTS lab_stock(id INT PRIMARY KEY, quantity INT, version BIGINT,"
          + " max_token BIGINT)");
      s.execute("DELETE FROM lab_fence");
      s.execute("DELETE FROM lab_stock");
      s.execute("INSERT INTO lab_fence VALUES (1, -1, 0)");
      s.execute("INSERT INTO lab_stock VALUES (1, " + stock + ", 0, -1)");
    }
  }

  /**
   * Writes to the fenced resource with {@code token}: accepted only if no higher token was seen
   * before, and then the highest seen. Token -1 (a scheme without tokens) is always accepted.
   *
   * @return whether the write was accepted
   */
  public static boolean fencedWrite(Connection c, long token) throws SQLException {
    if (token < -1) {
      throw new IllegalArgumentException("a fencing token is -1 or more, was " + token);
    }
    if (token == -1) {
      try (Statement s = c.createStatement()) {
        return s.executeUpdate("UPDATE lab_fence SET writes = writes + 1 WHERE id = 1") == 1;
      }
    }
    try (PreparedStatement ps = c.prepareStatement(
        "UPDATE lab_fence SET max_token = ?, writes = writes + 1 WHERE id = 1 AND max_token <= ?")) {
      ps.setLong(1, token);
      ps.setLong(2, token);
      return ps.executeUpdate() == 1;
    }
  }

  /** How many fenced writes were accepted since the reset. */
  public static long writes(Connection c) throws SQLException {
    return one(c, "SELECT writes FROM lab_fence WHERE id = 1");
  }

  /** The stock now. */
  public static int stock(Connection c) throws SQLException {
    return (int) one(c, "SELECT quantity FROM lab_stock WHERE id = 1");
  }

  /**
   * Sets the stock to {@code quantity}, as a buyer without a version check does: with a token, only
   * if no higher token wrote it before (the row is fenced like {@code lab_fence}); with token -1,
   * unconditionally.
   *
   * @return whether the write was accepted
   */
  public static boolean setStock(Connection c, int quantity, long token) throws SQLException {
    if (token < -1) {
      throw new IllegalArgumentException("a fencing token is -1 or more, was " + token);
    }
    try (PreparedStatement ps = c.prepareStatement("UPDATE lab_stock SET quantity = ?, version = version + 1,"
        + " max_token = GREATEST(max_token, ?) WHERE id = 1 AND (? = -1 OR max_token <= ?)")) {
      ps.setInt(1, quantity);
      ps.setLong(2, token);
      ps.setLong(3, token);
      ps.setLong(4, token);
      return ps.executeUpdate() == 1;
    }
  }

  private static long one(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      if (!rs.next()) {
        throw new IllegalStateException("no row for '" + sql + "': call Resource.reset first");
      }
      return rs.getLong(1);
    }
  }
}
