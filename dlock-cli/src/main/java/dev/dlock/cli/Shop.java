package dev.dlock.cli;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The demo's one-row stock table. Reading and writing are two statements on purpose: between them
 * lies the gap in which unprotected buyers read the same count and oversell.
 */
final class Shop {
  static final int ITEM = 1;

  private Shop() {}

  static void reset(Connection c, int stock) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS demo_stock (id INT PRIMARY KEY, quantity INT NOT NULL,"
          + " version BIGINT NOT NULL)");
      st.execute("DELETE FROM demo_stock");
    }
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO demo_stock VALUES (?, ?, 0)")) {
      ps.setInt(1, ITEM);
      ps.setInt(2, stock);
      ps.executeUpdate();
    }
  }

  static int quantity(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT quantity FROM demo_stock WHERE id = ?")) {
      ps.setInt(1, ITEM);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  static void write(Connection c, int quantity) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "UPDATE demo_stock SET quantity = ?, version = version + 1 WHERE id = ?")) {
      ps.setInt(1, quantity);
      ps.setInt(2, ITEM);
      ps.executeUpdate();
    }
  }
}
