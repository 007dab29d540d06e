package dev.dlock.jdbc;

import dev.dlock.testkit.FreePorts;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/** A real PostgreSQL server for one test class, on a free loopback port. */
final class PostgresServer implements TestDatabase {
  private EmbeddedPostgres pg;

  @Override
  public void open() throws IOException {
    pg = EmbeddedPostgres.builder().setPort(FreePorts.next()).start();
  }

  @Override
  public String url() {
    return "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres";
  }

  int port() {
    return pg.getPort();
  }

  /**
   * Makes {@code user} a superuser who must log in with {@code password} (scram-sha-256) over TCP;
   * every other user is still trusted. Returns once a wrong password is refused.
   */
  void requirePassword(String user, String password) throws Exception {
    execute("CREATE ROLE " + user + " LOGIN SUPERUSER PASSWORD '" + password + "'");
    Path hba = Path.of(query("SHOW hba_file"));
    String rules = "host all " + user + " 127.0.0.1/32 scram-sha-256\n"
        + "host all " + user + " ::1/128 scram-sha-256\n";
    Files.writeString(hba, rules + Files.readString(hba));
    query("SELECT pg_reload_conf()");
    String wrong = "jdbc:postgresql://127.0.0.1:" + port() + "/postgres?user=" + user + "&password=wrong";
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (Connection c = DriverManager.getConnection(wrong)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("PostgreSQL still lets " + user + " in without a password");
        }
        Thread.sleep(20); // the postmaster reads pg_hba.conf again once it handles the reload signal
      } catch (SQLException refused) {
        return;
      }
    }
  }

  /** The postmaster's process id, from postmaster.pid in the data directory. */
  long postmasterPid() throws Exception {
    Path pidFile = Path.of(query("SHOW data_directory"), "postmaster.pid");
    return Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
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
