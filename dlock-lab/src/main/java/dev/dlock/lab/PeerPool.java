package dev.dlock.lab;

import com.zaxxer.hikari.HikariDataSource;

/**
 * The connection pool a JDBC peer opens on the lab's PostgreSQL, with the peer's table created.
 * Why one place: ShedLock and Spring Integration's JDBC registry each take a plain
 * {@code DataSource}, and each worker opens its own small pool, as each application instance does.
 */
final class PeerPool {
  private PeerPool() {}

  /** A pool of two connections to peer URL {@code url}, named {@code name}, after {@code ddl}; closed on failure. */
  static HikariDataSource open(String url, String name, String ddl) throws Exception {
    HikariDataSource pool = new HikariDataSource();
    try {
      pool.setJdbcUrl(PeerUrl.jdbc(url));
      pool.setMaximumPoolSize(2);
      pool.setPoolName(name);
      PeerTables.create(pool, ddl);
      return pool;
    } catch (Exception e) {
      pool.close();
      throw e;
    }
  }
}
