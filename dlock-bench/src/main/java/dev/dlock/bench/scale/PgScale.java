package dev.dlock.bench.scale;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dlock.bench.targets.PgServer;
import dev.dlock.jdbc.JdbcLockBackend;
import dev.dlock.spi.LockBackend;
import dev.dlock.testkit.StatementCounter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The bench's PostgreSQL, with a lock table of its own. Each client gets its own HikariCP pool,
 * sized as dlock's for a URL plus the LISTEN connection, seen through a {@link StatementCounter}:
 * requests are the statements run. Stored: the rows of the lock table and its waiter table.
 */
final class PgScale implements ScaleBackend {
  static final String TABLE = "dlock_scale";
  private final StatementCounter counting = StatementCounter.onEveryThread();
  private final List<HikariDataSource> pools = new ArrayList<>();

  @Override
  public String name() {
    return "pg";
  }

  @Override
  public synchronized LockBackend open() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(PgServer.url());
    config.setPoolName("scale-" + pools.size());
    config.setMaximumPoolSize(PgServer.POOL_SIZE + 1);
    config.setMinimumIdle(1);
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return JdbcLockBackend.builder().dataSource(counting.wrap(pool)).table(TABLE).build();
  }

  @Override
  public long requests() {
    return counting.statements();
  }

  @Override
  public long stored() {
    try (Connection c = java.sql.DriverManager.getConnection(PgServer.url());
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM " + TABLE + ") + (SELECT count(*) FROM "
            + TABLE + "_waiters)")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot count the rows of " + TABLE + ": " + e, e);
    }
  }

  @Override
  public String storedUnit() {
    return "rows";
  }

  @Override
  public String legend() {
    return "pg: the bench's embedded PostgreSQL 17, table " + TABLE + "; requests = statements run by the"
        + " client (counted at its DataSource; HikariCP's validity check of an idle connection is a round"
        + " trip but no statement); stored = rows of " + TABLE + " and " + TABLE + "_waiters.";
  }

  @Override
  public synchronized void close() {
    pools.forEach(HikariDataSource::close);
    pools.clear();
  }
}
