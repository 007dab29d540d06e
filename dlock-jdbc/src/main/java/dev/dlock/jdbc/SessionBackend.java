package dev.dlock.jdbc;

import dev.dlock.internal.CallTimeout;
import dev.dlock.internal.Urls;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.WaitsAtServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
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
final class SessionBackend implements LockBackend, WaitsAtServer {
  private static final Logger log = LoggerFactory.getLogger(SessionBackend.class);
  /** How long renewal waits for one pinned connection to answer, unless its deadline is nearer. */
  private static final long ALIVE_NANOS = TimeUnit.SECONDS.toNanos(2);
  /** How much sooner than the caller's deadline a wait at the server ends, for its answer to travel. */
  private static final long ANSWER_MILLIS = 100;

  /** A connection holding the lock of one grant. Used by one thread at a time (synchronized). */
  private record Pinned(Grant grant, Database.Borrowed borrowed) {}

  private final Database db;
  private final boolean describeFromDatabase;
  private final String table;
  private final boolean createTable;
  private final int timeoutSeconds;
  private final @Nullable AutoCloseable pool;
  private final Map<String, Pinned> pinned = new ConcurrentHashMap<>();
  private final ServerWait wait = new ServerWait();
  private volatile @Nullable SessionDialect dialect;
  private volatile @Nullable Dialect leaseDialect;
  private volatile int maxNameLength = 255;
  private volatile boolean closed;

  SessionBackend(Database db, boolean describeFromDatabase, String table,
      boolean createTable, Duration queryTimeout, @Nullable AutoCloseable pool) {
    this.db = db;
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
      maxNameLength = Schema.prepare(c, found, createTable).maxNameLength();
      SessionDialect session = SessionDialect.of(found, context.ticker());
      session.prepare(c);
      leaseDialect = found;
      return session;
    });
  }

  @Override
  public Attempt tryAcquire(LockRequest request) {
    String name = request.name();
    String owner = request.owner();
    SessionDialect d = dialect();
    String what = "acquire lock '" + name + "'";
    try {
      try {
        return take(d, borrow(what), name, owner, 0, new SessionDialect.Cancel());
      } catch (SQLException e) {
        remakeIfMissing(what, e);
        return take(d, borrow(what), name, owner, 0, new SessionDialect.Cancel());
      }
    } catch (SQLException e) {
      throw db.failure(what, e);
    }
  }

  @Override
  public Attempt acquireWaiting(String name, String owner, Duration leaseTime, Duration maxWait)
      throws InterruptedException {
    dialect();
    long millis = Math.max(1, Math.min(maxWait.toMillis(), TimeUnit.HOURS.toMillis(1)));
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before waiting for lock '" + name + "'");
    }
    String what = "wait for lock '" + name + "'";
    try {
      try {
        return waitFor(what, name, owner, millis);
      } catch (SQLException e) {
        remakeIfMissing(what, e);
        return waitFor(what, name, owner, millis);
      }
    } catch (SQLException e) {
      throw db.failure(what, e);
    }
  }

  /**
   * One wait at the server on a borrowed connection. Its reads may last as long as the wait plus
   * the read timeout, unless the caller's deadline is nearer; then the server waits that much less
   * than the deadline allows, so its answer still arrives in time.
   */
  private Attempt waitFor(String what, String name, String owner, long millis)
      throws SQLException, InterruptedException {
    SessionDialect d = dialect();
    Database.Borrowed c;
    try {
      c = borrow(what);
    } catch (RuntimeException e) {
      if (Thread.interrupted()) { // a pool may turn an interrupt into an SQLException
        throw new InterruptedException("interrupted while borrowing a connection for lock '" + name + "'");
      }
      throw e;
    }
    long readNanos = CallTimeout.boundNanos(TimeUnit.MILLISECONDS.toNanos(millis) + db.readNanos());
    long serverMillis =
        Math.max(1, Math.min(millis, TimeUnit.NANOSECONDS.toMillis(readNanos) - ANSWER_MILLIS));
    try {
      db.limitReads(c.connection(), readNanos);
    } catch (SQLException e) {
      c.closeQuietly(e);
      throw e;
    }
    SessionDialect.Cancel cancel = new SessionDialect.Cancel();
    try {
      return wait.run(() -> take(d, c, name, owner, serverMillis, cancel), cancel);
    } catch (RejectedExecutionException e) {
      c.closeQuietly(e);
      throw new IllegalStateException("backend " + describe() + " is closed", e);
    } catch (InterruptedException e) {
      cancel(name, owner); // the wait may have been granted just before the cancel landed
      throw e;
    }
  }

  /**
   * Makes the table (and H2's token sequence) again, as start did, if {@code e} says it is
   * missing, so the caller can try once more; else throws {@code e} as dlock's exception. A held
   * session lock lives in its connection, not in the table, so no holder loses it by this.
   */
  private void remakeIfMissing(String what, SQLException e) {
    if (!Dialect.isMissingTable(e)) {
      throw db.failure(what, e);
    }
    log.warn("dlock: the lock table '{}' of {} is missing; making it again", table, describe());
    try {
      db.run("make the lock table '" + table + "' again", c -> {
        // start sets leaseDialect before dialect, which the caller has read: it is set.
        Dialect lease = Objects.requireNonNull(leaseDialect, "leaseDialect");
        int maxName = Schema.prepare(c, lease, createTable).maxNameLength();
        dialect().prepare(c);
        return maxName; // unused: run needs an answer
      });
    } catch (RuntimeException again) {
      again.addSuppressed(e);
      throw again;
    }
  }

  /** Takes the lock on {@code b}; pins {@code b} on success, else returns it to the pool. */
  private Attempt take(SessionDialect d, Database.Borrowed b, String name, String owner, long millis,
      SessionDialect.Cancel cancel) throws SQLException {
    long token;
    Connection c = b.connection();
    try {
      if (!d.lock(c, name, millis, cancel)) {
        b.close();
        return Attempt.held(Duration.ZERO, null);
      }
      try {
        db.limitReads(c, CallTimeout.boundNanos(db.readNanos()));
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
      b.closeQuietly(e);
      throw e;
    }
    Grant g = new Grant(name, owner, token);
    pinned.put(owner, new Pinned(g, b));
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
          p.borrowed().closeQuietly(null);
        }
      }
    }
    return lost;
  }

  /**
   * A round trip on the pinned connection, within the renewal's deadline. Not isValid: drivers
   * bound it in whole seconds of their own choosing. A connection that fails or times out is
   * broken, and the server frees its lock once it notices.
   */
  private boolean alive(Pinned p) {
    synchronized (p) {
      Connection c = p.borrowed().connection();
      try (Statement s = c.createStatement()) {
        db.limitReads(c, CallTimeout.boundNanos(ALIVE_NANOS));
        s.execute("SELECT 1");
        return true;
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
      Connection c = p.borrowed().connection();
      try {
        db.limitReads(c, CallTimeout.boundNanos(db.readNanos()));
        boolean held = d.unlock(c, p.grant().name());
        p.borrowed().close();
        return held;
      } catch (SQLException e) {
        p.borrowed().closeQuietly(e);
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
  @SuppressWarnings("ModifyCollectionInEnhancedForLoop") // pinned is a concurrent map
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    wait.close();
    for (Pinned p : pinned.values()) {
      if (pinned.remove(p.grant().owner(), p)) {
        p.borrowed().closeQuietly(null); // the server frees the lock with the session
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

  private Database.Borrowed borrow(String what) {
    try {
      Database.Borrowed b = db.borrow();
      try {
        if (!b.connection().getAutoCommit()) {
          b.connection().setAutoCommit(true);
        }
      } catch (SQLException e) {
        b.closeQuietly(e);
        throw e;
      }
      return b;
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
