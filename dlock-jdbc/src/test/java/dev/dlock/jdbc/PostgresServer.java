package dev.dlock.jdbc;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import javax.sql.DataSource;

/** A real PostgreSQL server for one test class, on a free loopback port. */
final class PostgresServer implements TestDatabase {
  private final EmbeddedPostgres pg;

  private PostgresServer(EmbeddedPostgres pg) {
    this.pg = pg;
  }

  static PostgresServer start() throws IOException {
    return new PostgresServer(EmbeddedPostgres.builder().start());
  }

  @Override
  public String url() {
    return "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres";
  }

  @Override
  public String passwordUrl() {
    return url() + "&password=" + SECRET; // the embedded server trusts local users
  }

  @Override
  public DataSource dataSource() {
    return pg.getPostgresDatabase();
  }

  @Override
  public String badTimestampType() {
    return "TIMESTAMP";
  }

  @Override
  public void close() throws IOException {
    pg.close();
  }
}
