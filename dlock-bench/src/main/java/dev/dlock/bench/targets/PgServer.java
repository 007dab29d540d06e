package dev.dlock.bench.targets;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The one PostgreSQL server of a bench run, shared by every JDBC target so they compete on the same
 * server and database. The first JDBC target to need it starts an embedded PostgreSQL (zonky,
 * PostgreSQL 17) on a free loopback port; a JVM shutdown hook stops it.
 *
 * <p>JMH forks are separate JVMs: they get the URL through the {@value #URL_PROPERTY} system
 * property ({@link #forkJvmArgs}), so they use the parent's server instead of starting their own.
 * Setting that property by hand points the bench at an existing server instead.
 */
public final class PgServer {
  /** The JDBC URL of the server to use; set once the embedded one is up. */
  public static final String URL_PROPERTY = "dlock.bench.pg.url";
  /**
   * Connections per client for every JDBC target: the size of the pool dlock makes for a URL, so
   * the peers get the same.
   */
  public static final int POOL_SIZE = 4;

  static final String LEGEND = "JDBC targets: one embedded PostgreSQL 17 on loopback for the whole"
      + " run (zonky defaults: fsync off, synchronous_commit off), same database; each client has"
      + " its own HikariCP pool of max " + POOL_SIZE + " connections (min idle 1); jdbc-pg clients"
      + " also hold one LISTEN connection each.";

  private PgServer() {}

  /** The server's URL, starting the embedded server on first use. */
  public static synchronized String url() {
    String url = System.getProperty(URL_PROPERTY);
    if (url != null) {
      return url;
    }
    EmbeddedPostgres pg;
    try {
      pg = EmbeddedPostgres.builder().start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        pg.close();
      } catch (IOException e) {
        System.err.println("bench: stopping the embedded PostgreSQL failed: " + e);
      }
    }, "bench-pg-stop"));
    url = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres";
    System.setProperty(URL_PROPERTY, url);
    return url;
  }

  /** What a JMH fork needs on its command line to reach this server. */
  static List<String> forkJvmArgs() {
    return List.of("-D" + URL_PROPERTY + "=" + url());
  }

  /** A HikariCP pool on the server, sized and idling as dlock's own pool for a URL. */
  static HikariDataSource pool(String name) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url());
    config.setPoolName(name);
    config.setMaximumPoolSize(POOL_SIZE);
    config.setMinimumIdle(1);
    return new HikariDataSource(config);
  }
}
