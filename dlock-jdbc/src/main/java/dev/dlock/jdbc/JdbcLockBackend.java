package dev.dlock.jdbc;

import static java.util.Objects.requireNonNull;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dlock.BackendUnavailableException;
import dev.dlock.internal.Urls;
import dev.dlock.jdbc.internal.NoWaitProbeSocketFactory;
import dev.dlock.spi.LockBackend;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Lease locks (scheme S1) in a database table, on PostgreSQL 9.5+, MariaDB 10.6+, MySQL 8.0.17+ and
 * H2 2.x. Each lock name is one row holding its owner, its fencing token and its expiry; a grant
 * is one atomic statement that takes a free or expired row and increments its token; expiry is
 * decided by the database's clock only; renewal of all of a client's leases is one statement; a
 * release clears the owner but keeps the row, so tokens grow forever.
 *
 * <p>Waiting clients queue in a second table, oldest first, and each release wakes exactly one of
 * them: on PostgreSQL by a NOTIFY to that client's own LISTEN connection, on MariaDB by a
 * {@code KILL QUERY} that ends the {@code SLEEP} on that client's own bell connection, on H2 by a
 * ring to that client in the same JVM, and on MySQL through a per-client poller that sees its
 * queue row removed (within 10 to 250 ms). A waiter never sleeps past its holder's expiry, and the
 * client's {@code maxPollInterval} bounds the cost of a wake-up that was lost.
 *
 * <pre>{@code
 * LockBackend backend = JdbcLockBackend.builder().dataSource(ds).table("dlock_locks").build();
 * try (LockClient client = LockClient.builder().backend(backend).build()) { ... }
 *
 * // or, with a pool made by dlock (HikariCP):
 * LockClient client = LockClient.connect("jdbc:postgresql://db:5432/app?user=app&password=secret");
 * }</pre>
 *
 * <p>{@link Builder#session()} (or {@code dlockMode=session} in a URL) selects session locks
 * (scheme S3) instead: the database's own lock held by one pinned connection per grant, waited for
 * at the server and freed when that connection dies.
 *
 * <p>The table is created when absent (see the CREATE statements {@code dev/dlock/jdbc/*.sql}
 * shipped in this jar), and an existing table is checked for the expected columns and primary key
 * when the client starts, and made again if it goes missing while the client runs (every lease
 * held in it is then reported lost). A token is the larger of the row's last token + 16 and the
 * database clock in microseconds, so it keeps rising even if a row or the whole table is lost; the
 * 15 tokens between go to the threads of the holder's client that the lock is handed to without
 * a statement.
 * The JDBC driver of the database must be on the classpath.
 */
public final class JdbcLockBackend {
  /** The table used unless {@link Builder#table} names another. */
  public static final String DEFAULT_TABLE = Schema.DEFAULT_TABLE;
  /** The default statement timeout. */
  public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(5);
  /** The default size of the connection pool dlock makes for a URL. */
  public static final int DEFAULT_POOL_SIZE = 4;
  /** The default size of the connection pool dlock makes for a URL in {@link Builder#session()} mode. */
  public static final int DEFAULT_SESSION_POOL_SIZE = 16;
  /**
   * The default connect timeout: a healthy database accepts a connection and a login in well under
   * a second, even across regions, so two seconds tell a dead or paused one from a slow one while
   * staying inside the waits callers typically give an acquire, and below the query timeout.
   */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
  /** How much longer than the query timeout a read may wait when no caller's deadline is nearer. */
  private static final Duration READ_MARGIN = Duration.ofSeconds(2);

  private static final AtomicInteger POOLS = new AtomicInteger();

  private JdbcLockBackend() {}

  /** A builder; give it a {@link Builder#dataSource} or a {@link Builder#url}. */
  public static Builder builder() {
    return new Builder();
  }

  /** Configures a JDBC lock backend. Not thread-safe. */
  public static final class Builder {
    private @Nullable DataSource dataSource;
    private @Nullable String url;
    private String table = DEFAULT_TABLE;
    private boolean createTable = true;
    private Duration queryTimeout = DEFAULT_QUERY_TIMEOUT;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private int poolSize = DEFAULT_POOL_SIZE;
    private boolean poolSizeSet;
    private boolean session;

    private Builder() {}

    /**
     * Session locks (scheme S3) instead of lease locks: each grant pins one pooled connection
     * holding the database's own lock (PostgreSQL {@code pg_advisory_lock}, MariaDB/MySQL
     * {@code GET_LOCK}, H2 {@code SELECT ... FOR UPDATE} in an open transaction) until release.
     * Waiters are queued by the server, with no polling, and a holder whose connection dies loses
     * the lock at once; renewal then reports the loss. Tokens come from the same table's token
     * column (on H2 from the sequence {@code <table>_token_seq}). The pool needs one connection
     * per lock held plus one per waiter: with a URL the default pool size is
     * {@value JdbcLockBackend#DEFAULT_SESSION_POOL_SIZE}. Use one mode per table: a lease lock and
     * a session lock of the same name do not exclude each other.
     */
    public Builder session() {
      this.session = true;
      return this;
    }

    /** Lease locks (scheme S1), the default; undoes {@link #session()}. */
    public Builder lease() {
      this.session = false;
      return this;
    }

    /**
     * The application's DataSource; exclusive with {@link #url}. The backend borrows a connection
     * per operation and, on PostgreSQL and MariaDB, keeps one while open (for LISTEN, or for the
     * sleep that a release ends). Closing the backend does
     * not close the DataSource.
     */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = requireNonNull(dataSource, "dataSource");
      this.url = null;
      return this;
    }

    /**
     * A JDBC URL such as {@code jdbc:postgresql://host:5432/db?user=u&password=p}; exclusive with
     * {@link #dataSource}. The backend makes a small HikariCP pool for it and closes it on close.
     */
    public Builder url(String url) {
      requireNonNull(url, "url");
      if (!url.startsWith("jdbc:")) {
        throw new IllegalArgumentException("url must start with 'jdbc:', was '" + Urls.redact(url) + "'");
      }
      this.url = url;
      this.dataSource = null;
      return this;
    }

    /**
     * The lock table: an unquoted identifier of at most 48 letters, digits and '_', in the
     * connection's current schema; default {@value JdbcLockBackend#DEFAULT_TABLE}. Its waiter queue
     * is the table of the same name with {@code _waiters} appended.
     */
    public Builder table(String table) {
      this.table = Schema.checkTable(table);
      return this;
    }

    /** Whether to create the table when it is absent; default true. */
    public Builder createTable(boolean createTable) {
      this.createTable = createTable;
      return this;
    }

    /**
     * How long one statement may run before it fails with BackendUnavailableException: 1 s to
     * 1 h, whole seconds; default 5 s. A read from a database that stops answering is given up
     * 2 s after it, or at the deadline of the call (an acquire's wait, a lease's time left) if
     * that is sooner.
     */
    public Builder queryTimeout(Duration queryTimeout) {
      requireNonNull(queryTimeout, "queryTimeout");
      if (queryTimeout.compareTo(Duration.ofSeconds(1)) < 0
          || queryTimeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("queryTimeout must be 1 s to 1 h, was " + queryTimeout);
      }
      this.queryTimeout = queryTimeout;
      return this;
    }

    /**
     * How soon a database that cannot be reached is reported, with BackendUnavailableException:
     * the driver's connect and login timeouts and the wait for a connection of the pool made for a
     * {@link #url} (a caller's nearer deadline still wins); 250 ms to 10 min, default 2 s.
     * PostgreSQL's driver counts whole seconds, so it waits this rounded up to a second. Used only
     * with a {@link #url}: a DataSource keeps its own settings.
     */
    public Builder connectTimeout(Duration connectTimeout) {
      requireNonNull(connectTimeout, "connectTimeout");
      if (connectTimeout.compareTo(Duration.ofMillis(250)) < 0
          || connectTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("connectTimeout must be 250 ms to 10 min, was " + connectTimeout);
      }
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * The most connections the pool made for a {@link #url} holds: 1 to 64; default 4, or 16 for
     * {@link #session()} locks.
     */
    public Builder poolSize(int poolSize) {
      if (poolSize < 1 || poolSize > 64) {
        throw new IllegalArgumentException("poolSize must be 1 to 64, was " + poolSize);
      }
      this.poolSize = poolSize;
      this.poolSizeSet = true;
      return this;
    }

    /**
     * The backend, to pass to {@code LockClient.builder().backend(...)}. With a URL, the pool is
     * opened here; the table is checked or created when the client starts the backend.
     *
     * @throws IllegalStateException if neither a DataSource nor a URL was given
     * @throws IllegalArgumentException if no JDBC driver on the classpath accepts the URL
     * @throws BackendUnavailableException if the database at the URL cannot be reached
     */
    public LockBackend build() {
      if (dataSource != null) {
        Database db = new Database(dataSource, "DataSource " + dataSource.getClass().getName(),
            queryTimeout.plus(READ_MARGIN));
        if (session) {
          return new SessionBackend(db, true, table, createTable, queryTimeout, null);
        }
        return new LeaseBackend(db, true, table, createTable, queryTimeout, dataSource::getConnection, null);
      }
      if (url == null) {
        throw new IllegalStateException("a JDBC lock backend needs a dataSource(...) or a url(...)");
      }
      return fromUrl(url);
    }

    private LockBackend fromUrl(String url) {
      String redacted = Urls.redact(url);
      Credentials login = Credentials.of(url, redacted);
      Driver driver;
      try {
        driver = DriverManager.getDriver(login.url());
      } catch (SQLException e) {
        throw new IllegalArgumentException(String.format("no JDBC driver on the classpath accepts url"
            + " '%s'; add your database's driver, such as org.postgresql:postgresql,"
            + " org.mariadb.jdbc:mariadb-java-client, com.mysql:mysql-connector-j or com.h2database:h2",
            redacted), e);
      }
      Properties timeouts = driverTimeouts(url, connectTimeout);
      Properties withLogin = new Properties();
      withLogin.putAll(timeouts);
      login.addTo(withLogin);
      // One connection first, on this thread, to report an unreachable database at once (the
      // pool's own check sleeps a second after a failure); the pool then fills in the background.
      try (Connection probe = driver.connect(login.url(), withLogin)) {
        if (probe == null) {
          throw new IllegalArgumentException("the JDBC driver " + driver.getClass().getName()
              + " does not accept url '" + redacted + "'");
        }
      } catch (SQLException e) {
        throw unreachable(redacted, e);
      }
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(login.url());
      config.setUsername(login.user());
      config.setPassword(login.password());
      config.setDataSourceProperties(timeouts);
      config.setPoolName("dlock-" + POOLS.incrementAndGet());
      config.setMaximumPoolSize(session && !poolSizeSet ? DEFAULT_SESSION_POOL_SIZE : poolSize);
      config.setMinimumIdle(1);
      config.setConnectionTimeout(connectTimeout.toMillis());
      // A pooled connection idle for a while is checked before use; against a paused server the
      // check must not outlast the caller's deadline by much.
      config.setValidationTimeout(Math.min(1000, connectTimeout.toMillis()));
      config.setInitializationFailTimeout(-1);
      // A client-side query timeout costs PostgreSQL's driver a timer task per statement, about a
      // fifth of an uncontended lock and unlock; the server's statement_timeout bounds each
      // statement of the pool's sessions instead, unless the URL sets its own server options.
      boolean serverTimeout = !session && url.startsWith("jdbc:postgresql:") && !url.contains("options=");
      if (serverTimeout) {
        config.addDataSourceProperty("options", "-c statement_timeout=" + queryTimeout.toMillis());
      }
      // Reads on the pool's PostgreSQL connections are bounded from the start, so a call with no
      // deadline of its own borrows a connection as it is. Why: setting the network timeout on
      // every borrow, and the pool resetting it on every return, cost about 11 µs of a 77 µs
      // lock and unlock in a raw JDBC probe on one CPU. A URL that sets its own socketTimeout
      // keeps the per-borrow setting.
      Duration read = queryTimeout.plus(READ_MARGIN); // whole seconds, socketTimeout's unit
      boolean readsBounded = url.startsWith("jdbc:postgresql:") && !url.contains("socketTimeout=");
      if (readsBounded) {
        config.addDataSourceProperty("socketTimeout", Long.toString(read.toSeconds()));
      }
      HikariDataSource pool;
      try {
        pool = new HikariDataSource(config);
      } catch (RuntimeException e) {
        throw unreachable(redacted, e.getCause() instanceof SQLException ? e.getCause() : e);
      }
      Database db = new Database(pool, redacted, read, readsBounded);
      if (session) {
        return new SessionBackend(db, false, table, createTable, queryTimeout, pool);
      }
      // PostgreSQL's LISTEN connection, or MariaDB's bell (whose driver has a socketFactory too).
      Properties listenProperties = url.startsWith("jdbc:postgresql:") ? listenProperties(driver) : new Properties();
      listenProperties.putAll(withLogin);
      PgListener.Opener unpooled = () -> driver.connect(login.url(), listenProperties);
      return new LeaseBackend(db, false, table, createTable,
          serverTimeout ? Duration.ZERO : queryTimeout, unpooled, pool);
    }
  }

  private static BackendUnavailableException unreachable(String redacted, Throwable cause) {
    return new BackendUnavailableException(String.format("cannot connect to database %s: %s",
        redacted, Database.oneLine(cause)), cause);
  }

  /**
   * The driver's own connect and login timeouts, in its own units: PostgreSQL's in whole seconds,
   * MariaDB's and MySQL's in milliseconds. H2 has none per connection (and refuses properties it
   * does not know); its socket connect timeout is the system property h2.socketConnectTimeout.
   */
  static Properties driverTimeouts(String url, Duration connectTimeout) {
    Properties p = new Properties();
    if (url.startsWith("jdbc:postgresql:")) {
      String seconds = Long.toString((connectTimeout.toMillis() + 999) / 1000);
      p.setProperty("connectTimeout", seconds);
      p.setProperty("loginTimeout", seconds);
    } else if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
      p.setProperty("connectTimeout", Long.toString(connectTimeout.toMillis()));
    }
    return p;
  }

  /**
   * The properties of the LISTEN connection: PostgreSQL's driver gets sockets that answer its
   * look for a further message at once (see {@link NoWaitProbeSocketFactory}), if it can load
   * them; a {@code socketFactory} in the URL wins over this one.
   */
  static Properties listenProperties(Driver driver) {
    Properties p = new Properties();
    String name = NoWaitProbeSocketFactory.class.getName();
    try {
      Class.forName(name, false, driver.getClass().getClassLoader());
      p.setProperty("socketFactory", name);
    } catch (ClassNotFoundException | LinkageError e) {
      // The driver cannot see dlock's classes (separate class loaders): plain sockets, 1 ms slower.
    }
    return p;
  }
}
