package dev.dlock.bench.targets;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.Lock;

/**
 * The PostgreSQL floor: the fewest statements any lease lock on a table needs, two one-row
 * statements a cycle (an insert that also takes over an expired row, and a delete of this owner's
 * row), autocommit, on the run's PostgreSQL ({@link PgServer}). Each client is a HikariCP pool as
 * the other JDBC targets have, and each statement borrows one connection from it, as they do.
 */
final class FloorPgTarget implements Target {
  static final String NAME = "floor-pg";
  static final String LEGEND = NAME + ": the PostgreSQL floor, two one-row statements a cycle"
      + " (INSERT ... ON CONFLICT DO UPDATE of an expired row, DELETE), autocommit, one pooled"
      + " connection per statement, no lock logic.";
  private static final String TABLE = "bench_floor_lock";
  private static final String ACQUIRE = "INSERT INTO " + TABLE + " (name, owner, expires_at)"
      + " VALUES (?, ?, now() + interval '30 seconds') ON CONFLICT (name) DO UPDATE"
      + " SET owner = excluded.owner, expires_at = excluded.expires_at"
      + " WHERE " + TABLE + ".expires_at < now()";
  private static final String RELEASE = "DELETE FROM " + TABLE + " WHERE name = ? AND owner = ?";

  private final List<HikariDataSource> pools = new ArrayList<>();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> forkJvmArgs() {
    return PgServer.forkJvmArgs();
  }

  @Override
  public void setUp(int count) throws SQLException {
    for (int i = 0; i < count; i++) {
      pools.add(PgServer.pool("floor-" + i));
    }
    try (Connection c = pools.get(0).getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS " + TABLE
          + " (name text PRIMARY KEY, owner text NOT NULL, expires_at timestamptz NOT NULL)");
    }
  }

  @Override
  public Lock lock(int client, String key) {
    HikariDataSource pool = pools.get(client);
    String owner = UUID.randomUUID().toString();
    return new FloorLock(NAME, key, () -> update(pool, ACQUIRE, key, owner),
        () -> update(pool, RELEASE, key, owner));
  }

  /** One statement on one pooled connection; true if it changed the row. */
  private static boolean update(HikariDataSource pool, String sql, String key, String owner)
      throws SQLException {
    try (Connection c = pool.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, key);
      s.setString(2, owner);
      return s.executeUpdate() == 1;
    }
  }

  @Override
  public void tearDown() {
    pools.forEach(HikariDataSource::close);
    pools.clear();
  }
}
