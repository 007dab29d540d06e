package dev.dlock.jdbc;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.Urls;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The S3 session lock: each grant pins one pooled connection that holds the database's own lock
 * (see {@link SessionDialect}) until release, so waiters are queued by the server and a holder
 * whose connection dies loses the lock with it. Why a pinned connection per grant rather than one
 * per client: each lock is then released, or lost, on its own, and a wait (run through
 * {@link ServerWait} so an interrupt cancels it) never blocks another lock's release. Renewal
 * checks that each pinned connection is still alive; a dead one is a lost grant.
 */
final class SessionBackend implements LockBackend {
  private static final Logger log = LoggerFactory.getLogger(SessionBackend.class);
  /** How long renewal waits for one pinned connection to answer. */
  private static final int ALIVE_SECONDS = 2;

  /** A connection holding the lock of one grant. Used by one thread at a time (synchronized). */
  private record Pinned(Grant grant, Connection connection) {}

  private final Database db;
  private final DataSource dataSource;
  private final boolean describeFromDatabase;
  private final String table;
  private final boolean createTable;
  private final int timeoutSeconds;
  private final AutoCloseable pool;
  private final Map<String, Pinned> pinned = new ConcurrentHashMap<>();
  private final ServerWait wait = new ServerWait();
  private volatile SessionDialect dialect;
  private volatile int maxNameLength = 255;
  private volatile boolean closed;

  SessionBackend(Database db, DataSource dataSource, boolean describeFromDatabase, String table,
      boolean createTable, Duration queryTimeout, AutoCloseable pool) {
    this.db = db;
    this.dataSource = dataSource;
    this.describeFromDatabase = describeFromDatabase;
    this.table = table;
    this.createTable = createTable;
    this.timeoutSeconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, queryTimeout.toSeconds()));
    this.pool = pool;
  }

  @Override
  public void start(BackendContext context) {
    dialect = db.run("open lock table '" + table + "'", c -> {
      if (describeFromDatabase) {
        db.describeAs(Urls.redact(c.getMetaData().getURL()));
      }
      Dialect found = Dialect.detect(c.getMetaData(), table, timeoutSeconds);
      maxNameLength = Schema.prepare(c, found, createTable);
      SessionDialect session = SessionDialect.of(found);
      session.prepare(c);
      return session;
    });
  }

  @Override
  public boolean waitsAtServer() {
    return true;
  }

  @Override
  public Attempt tryAcquire(String name, String owner, Duration leaseTime, boolean willWait) {
    SessionDialect d = dialect();
    Connection c = borrow("acquire lock '" + name + "'");
    try {
      return take(d, c, name, owner, 0, new SessionDialect.Cancel());
    } catch (SQLException e) {
      throw db.failure("acquire lock '" + name + "'", e);
    }
  }

  @Override
  public Attempt acquireWaiting(String name, String owner, Duration leaseTime, Duration maxWait)
      throws InterruptedException {
    SessionDialect d = dialect();
    long millis = Math.max(1, Math.min(maxWait.toMillis(), TimeUnit.HOURS.toMillis(1)));
    String what = "wait for lock '" + name + "'";
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before waiting for lock '" + name + "'");
    }
    Connection c;
    try {
      c = borrow(what);
    } catch (RuntimeException e) {
      if (Thread.interrupted()) { // a pool may turn an interrupt into an SQLException
        throw new InterruptedException("interrupted while borrowing a connection for lock '" + name + "'");
      }
      throw e;
    }
    SessionDialect.Cancel cancel = new SessionDialect.Cancel();
    try {
      return wait.run(() -> take(d, c, name, owner, millis, cancel), cancel);
    } catch (SQLException e) {
      throw db.failure(what, e);
    } catch (RejectedExecutionException e) {
      closeQuietly(c, e);
      throw new IllegalStateException("backend " + describe() + " is closed", e);
    } catch (InterruptedException e) {
      cancel(name, owner); // the wait may have been granted just before the cancel landed
      throw e;
    }
  }

  /** Takes the lock on {@code c}; pins {@code c} on success, else returns it to the pool. */
  private Attempt take(SessionDialect d, Connection c, String name, String owner, long millis,
      SessionDialect.Cancel cancel) throws SQLException {
    long token;
    try {
      if (!d.lock(c, name, millis, cancel)) {
        c.close();
        return Attempt.held(Duration.ZERO, null);
      }
      try {
        token = d.nextToken(c, name);
      } catch (SQLException e) {
        try {
          d.unlock(c, name);
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    } catch (SQLException | RuntimeException e) {
      closeQuietly(c, e);
      throw e;
    }
    Grant g = new Grant(name, owner, token);
    pinned.put(owner, new Pinned(g, c));
    return Attempt.granted(token);
  }

  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    Set<Grant> lost = new HashSet<>();
    for (Grant g : grants) {
      Pinned p = pinned.get(g.owner());
      if (p == null || !p.grant().equals(g) || !alive(p)) {
        lost.add(g);
        if (p != null && p.grant().equals(g) && pinned.remove(g.owner(), p)) {
          closeQuietly(p.connection(), null);
        }
      }
    }
    return lost;
  }

  private static boolean alive(Pinned p) {
    synchronized (p) {
      try {
        return p.connection().isValid(ALIVE_SECONDS);
      } catch (SQLException e) {
        return false;
      }
    }
  }

  @Override
  public boolean release(Grant grant) {
    Pinned p = pinned.get(grant.owner());
    if (p == null || !p.grant().equals(grant) || !pinned.remove(grant.owner(), p)) {
      return false;
    }
    return unpin(p);
  }

  /** Unlocks and returns the connection; false if the lock was already gone with its connection. */
  private boolean unpin(Pinned p) {
    SessionDialect d = dialect();
    synchronized (p) {
      Connection c = p.connection();
      try {
        boolean held = d.unlock(c, p.grant().name());
        c.close();
        return held;
      } catch (SQLException e) {
        closeQuietly(c, e);
        if (Database.isUnavailable(e) || isClosed(c)) {
          return false; // the connection died, and its lock with it
        }
        throw db.failure("release lock '" + p.grant().name() + "'", e);
      }
    }
  }

  @Override
  public void cancel(String name, String owner) {
    Pinned p = pinned.get(owner);
    if (p != null && p.grant().name().equals(name) && pinned.remove(owner, p)) {
      unpin(p);
    }
  }

  @Override
  public int maxNameLength() {
    return maxNameLength;
  }

  @Override
  public String describe() {
    return db.description() + " (session locks)";
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    wait.close();
    for (Pinned p : pinned.values()) {
      if (pinned.remove(p.grant().owner(), p)) {
        closeQuietly(p.connection(), null); // the server frees the lock with the session
      }
    }
    if (pool != null) {
      try {
        pool.close();
      } catch (Exception e) {
        log.warn("dlock: closing the connection pool of {} failed", describe(), e);
      }
    }
  }

  private Connection borrow(String what) {
    try {
      Connection c = dataSource.getConnection();
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      return c;
    } catch (SQLException e) {
      throw db.failure(what, e);
    }
  }

  private static boolean isClosed(Connection c) {
    try {
      return c.isClosed();
    } catch (SQLException e) {
      return true;
    }
  }

  private static void closeQuietly(Connection c, Throwable cause) {
    try {
      c.close();
    } catch (SQLException | RuntimeException e) {
      if (cause != null) {
        cause.addSuppressed(e);
      }
    }
  }

  private SessionDialect dialect() {
    if (closed) {
      throw new IllegalStateException("backend " + describe() + " is closed");
    }
    SessionDialect d = dialect;
    if (d == null) {
      throw new IllegalStateException("backend " + describe() + " is not started");
    }
    return d;
  }
}
