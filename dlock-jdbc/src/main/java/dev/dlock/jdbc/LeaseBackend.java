package dev.dlock.jdbc;

import dev.dlock.internal.CallTimeout;
import dev.dlock.internal.Urls;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockInfo;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.SpareTokens;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The S1 lease lock on a table: one row per name with owner, fencing token and expiry, plus a
 * queue of waiting clients. Why it is thin: the dialect holds each database's statements and the
 * engine in dlock-core holds reentrancy, waits and the watchdog, so this class only sequences
 * statements. A refused waiter takes a place in the queue and then tries once more, which closes
 * the race with a release that ran in between; it then sleeps until the holder's expiry unless
 * its inbox is woken first. A release clears the row and dequeues the oldest live waiter in one
 * transaction; the grant statement of a woken waiter waits on the row lock of a release still in
 * flight, so no wake-up is lost between the two. A table found missing is made again (see
 * {@link #remake}).
 */
final class LeaseBackend implements LockBackend, SpareTokens {
  private static final Logger log = LoggerFactory.getLogger(LeaseBackend.class);
  /** How long a waiter sleeps between polls while its inbox cannot be reached. */
  static final Duration DEGRADED_POLL = Duration.ofMillis(250);
  /** How long closing waits for the database to drop this client's places in the queue. */
  private static final long CLOSE_NANOS = TimeUnit.SECONDS.toNanos(1);
  /** The name of the threads that renew some chunks of a large round beside the caller. */
  static final String RENEW_HELPER = "dlock-renew-helper";

  private final Database db;
  private final boolean describeFromDatabase;
  private final String table;
  private final boolean createTable;
  private final int timeoutSeconds;
  private final PgListener.Opener listenOpener;
  private final @Nullable AutoCloseable pool;
  private final Waiters waiters = new Waiters();
  /**
   * The threads that renew some chunks of a large round on more connections (see
   * {@link RenewalChunks}); started when a round needs them, ended after a minute idle.
   */
  private final ThreadPoolExecutor renewHelper = new ThreadPoolExecutor(0, RenewalChunks.MAX_HELPERS,
      1, TimeUnit.MINUTES,
      new SynchronousQueue<>(), r -> {
        Thread t = new Thread(r, RENEW_HELPER);
        t.setDaemon(true);
        return t;
      });
  private volatile @Nullable Dialect dialect;
  private volatile @Nullable Inbox inbox;
  private volatile @Nullable JdbcKinds kinds;
  private volatile int maxNameLength = 255;
  private volatile boolean closed;
  private volatile Duration fallbackRound = InboxPoller.FALLBACK_ROUND;

  /**
   * @param describeFromDatabase true to describe the backend by the URL the database reports
   *                             (for a DataSource), false when {@code db} is described by its URL
   * @param queryTimeout         bounds each statement on the client; zero when the server's own
   *                             statement timeout does
   * @param listenOpener         opens the unpooled connection PostgreSQL's LISTEN lives on
   * @param pool                 closed with this backend when the backend created it, else null
   */
  LeaseBackend(Database db, boolean describeFromDatabase, String table, boolean createTable,
      Duration queryTimeout, PgListener.Opener listenOpener, @Nullable AutoCloseable pool) {
    this.db = db;
    this.describeFromDatabase = describeFromDatabase;
    this.table = table;
    this.createTable = createTable;
    this.timeoutSeconds = queryTimeout.isZero()
        ? 0 : (int) Math.max(1, Math.min(Integer.MAX_VALUE, queryTimeout.toSeconds()));
    this.listenOpener = listenOpener;
    this.pool = pool;
  }

  /**
   * Sets how long a waiting client's inbox waits between looks at its queue while rings reach it
   * (MariaDB, H2), before {@link #start}; for tests, which make it long to see that rings wake.
   */
  void fallbackRound(Duration round) {
    this.fallbackRound = round;
  }

  @Override
  public void start(BackendContext context) {
    Dialect d = db.run("open lock table '" + table + "'", c -> {
      if (describeFromDatabase) {
        db.describeAs(Urls.redact(c.getMetaData().getURL()));
      }
      Dialect found = Dialect.detect(c.getMetaData(), table, timeoutSeconds);
      Schema.Tables tables = Schema.prepare(c, found, createTable);
      maxNameLength = tables.maxNameLength();
      return found.forLockColumns(tables.lockColumns());
    });
    waiters.timeBy(context.ticker());
    Inbox in = d instanceof PostgresDialect pg
        ? new PgListener(listenOpener, pg, waiters, context::released, db.description(), context.clientId(),
            context.ticker())
        : new InboxPoller(db, d, d.bell(listenOpener, context.ticker()), fallbackRound, waiters, context::released,
            context.clientId(), context.ticker());
    try {
      in.start();
    } catch (SQLException e) {
      throw db.failure("listen for releases on table '" + table + "'", e);
    }
    kinds = new JdbcKinds(db, d, waiters, in);
    dialect = d;
    inbox = in;
    db.remakeTablesWith(c -> remake(c, d, in, context));
  }

  /**
   * Makes the tables again, as start did, when work finds them gone: the database was restored
   * empty, or a new one answers at the same address. The grants this client holds went with the
   * rows, so the engine is told to re-check its leases at once (their renewal finds them gone and
   * reports them lost), and this client's waiters, whose places in the queue went too, try again
   * and queue anew.
   */
  private void remake(Connection c, Dialect d, Inbox in, BackendContext context) throws SQLException {
    log.warn("dlock: the lock table '{}' of {} is missing; making it again. Every lease held in it"
        + " is lost", table, describe());
    Schema.prepare(c, d, createTable);
    context.reconnected("the lock table '" + table + "' was missing and has been made again");
    in.wakeAll();
  }

  /** Every kind: the exclusive lock on the lock table, the others through {@link JdbcKinds}. */
  @Override
  public Set<LockKind> kinds() {
    return EnumSet.allOf(LockKind.class);
  }

  @Override
  public Attempt tryAcquire(LockRequest request) {
    if (request.kind() != LockKind.EXCLUSIVE) {
      return jdbcKinds().tryAcquire(request, micros(request.leaseTime()));
    }
    String name = request.name();
    String owner = request.owner();
    Duration leaseTime = request.leaseTime();
    boolean willWait = request.willWait();
    Dialect d = dialect();
    Inbox in = inbox();
    long micros = micros(leaseTime);
    return db.run("acquire lock", name, c -> {
      Long token = d.grant(c, name, owner, micros);
      if (token == null && willWait && in.healthy() && !waiters.isArmed(owner)) {
        d.arm(c, name, owner, in.id);
        waiters.armed(name, owner);
        in.nudge();
        try {
          // A release between the refusal and the queueing found no one to wake: look again.
          token = d.grant(c, name, owner, micros);
        } catch (SQLException | RuntimeException e) {
          leaveQuietly(c, d, name, owner, e);
          throw e;
        }
      }
      if (token != null) {
        if (waiters.disarm(owner)) {
          leaveGranted(c, d, name, owner);
        }
        return Attempt.granted(token);
      }
      Attempt held = d.held(c, name);
      if (willWait && !in.healthy()) {
        return Attempt.held(min(held.retryAfter(), DEGRADED_POLL), held.holder().orElse(null));
      }
      return held;
    });
  }

  /**
   * Gives up the queue place of an owner whose grant has just committed. The grant stands whatever
   * happens here. A queue table found missing took the place with it (another client is making the
   * tables again, and has made the lock table already). Any other error leaves the place behind,
   * until a wake-up removes it; that wake-up reaches no waiter, so the next one polls. Why not let
   * the error through: the work would run again, find the lock held by this very owner, and report
   * it held, by itself, until the lease ran out (a CI run saw that with the missing table).
   */
  private void leaveGranted(Connection c, Dialect d, String name, String owner) {
    try {
      d.leave(c, name, owner);
    } catch (SQLException e) {
      if (!Dialect.isMissingTable(e)) {
        log.warn("dlock: lock '{}' was granted on {}, but leaving its queue failed; the place left"
            + " behind goes at the next wake-up", name, describe(), e);
      }
    }
  }

  /** A failed attempt gives up the place it took at once, rather than leave it to a later cancel. */
  private void leaveQuietly(Connection c, Dialect d, String name, String owner, Exception cause) {
    if (waiters.disarm(owner)) {
      try {
        d.leave(c, name, owner);
      } catch (SQLException | RuntimeException e) {
        cause.addSuppressed(e);
      }
    }
  }

  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    if (grants.isEmpty()) {
      return Set.of();
    }
    Dialect d = dialect();
    List<Grant> list = new ArrayList<>();
    List<Grant> others = new ArrayList<>();
    for (Grant g : grants) {
      (g.kind() == LockKind.EXCLUSIVE ? list : others).add(g);
    }
    long micros = micros(leaseTime);
    @Nullable JdbcKinds k = others.isEmpty() ? null : jdbcKinds();
    String what = "renew " + grants.size() + " lease(s)";
    Set<Grant> gone = new HashSet<>();
    if (!list.isEmpty()) {
      BitSet renewed = RenewalChunks.renew(db, what, list, Dialect.RENEW_CHUNK,
          (c, chunk) -> d.renewChunkAt(c, chunk, micros), db.singleConnection() ? null : renewHelper,
          renewHelpers(db.maxConnections()));
      for (int i = renewed.nextClearBit(0); i < list.size(); i = renewed.nextClearBit(i + 1)) {
        gone.add(list.get(i));
      }
    }
    if (k != null) {
      Set<Grant> renewed = db.run(what, c -> k.renew(c, others, micros));
      for (Grant g : others) {
        if (!renewed.contains(g)) {
          gone.add(g);
        }
      }
    }
    return gone;
  }

  @Override
  public boolean release(Grant grant) {
    Dialect d = dialect();
    if (grant.kind() != LockKind.EXCLUSIVE) {
      return jdbcKinds().release(grant);
    }
    return db.run("release lock", grant.name(),
        c -> d.releaseAndWake(c, grant, Inbox.LIVE.toNanos() / 1000));
  }

  /**
   * Every exclusive grant leaves {@value Dialect#SPARE_TOKENS} tokens free after its own, so the
   * engine hands the grant to another thread of this client with no statement: the row keeps the
   * first owner and token meanwhile, which is what {@link #inspect} shows.
   */
  @Override
  public int spareTokens() {
    return Dialect.SPARE_TOKENS;
  }

  @Override
  public void cancel(String name, String owner) {
    if (closed) {
      return; // close() removed this client's queue rows
    }
    Dialect d = dialect();
    if (jdbcKinds().cancel(name, owner)) {
      return;
    }
    boolean queued = waiters.disarm(owner);
    db.run("cancel the wait for lock", name, c -> {
      if (queued) {
        d.leave(c, name, owner);
      }
      // A grant whose answer never reached the engine is released here. Like a release, this
      // locks the lock row before any queue row, so the two cannot deadlock. The ring waits for
      // the commit, as the woken client looks for its row gone.
      Optional<Dialect.Dequeued> woken = Dialect.inTransaction(c, () -> d.clear(c, name, owner)
          ? Optional.ofNullable(d.wakeNext(c, name, Inbox.LIVE.toNanos() / 1000)) : Optional.empty());
      d.ringQuietly(c, woken.orElse(null));
      return woken;
    });
  }

  @Override
  public Optional<LockInfo> inspect(String name) {
    Dialect d = dialect();
    return db.run("inspect lock '" + name + "'", c -> d.inspect(c, name)).stream().findFirst();
  }

  @Override
  public List<LockInfo> inspectAll() {
    Dialect d = dialect();
    List<LockInfo> all = new ArrayList<>(db.run("list the held locks", c -> d.inspect(c, null)));
    all.sort(Comparator.comparing(LockInfo::name));
    return all;
  }

  @Override
  public int maxNameLength() {
    return maxNameLength;
  }

  @Override
  public String describe() {
    return db.description();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    renewHelper.shutdown();
    Inbox in = inbox;
    Dialect d = dialect;
    if (in != null && d != null) { // start sets dialect first, so both are set or in is null
      in.close();
      try {
        // Bounded: releases skip these rows soon anyway, and a close must not wait out a dead server.
        if (waiters.everArmed()) {
          CallTimeout.within(CLOSE_NANOS,
              () -> db.run("leave the waiter queue", c -> d.leaveAll(c, in.id)));
        }
      } catch (RuntimeException e) {
        log.warn("dlock: could not remove the queued waiters of {}; releases skip them after {}: {}",
            describe(), Inbox.LIVE, e.getMessage());
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

  private Dialect dialect() {
    if (closed) {
      throw new IllegalStateException("backend " + describe() + " is closed");
    }
    Dialect d = dialect;
    if (d == null) {
      throw new IllegalStateException("backend " + describe() + " is not started");
    }
    return d;
  }

  /** The fair, read-write and semaphore locks; start sets them with the dialect. */
  private JdbcKinds jdbcKinds() {
    if (closed) {
      throw new IllegalStateException("backend " + describe() + " is closed");
    }
    JdbcKinds k = kinds;
    if (k == null) {
      throw new IllegalStateException("backend " + describe() + " is not started");
    }
    return k;
  }

  /** The inbox; start sets it just after the dialect, and a call in between finds no backend yet. */
  private Inbox inbox() {
    Inbox in = inbox;
    if (in == null) {
      throw new IllegalStateException("backend " + describe() + " is not started");
    }
    return in;
  }

  /**
   * How many helper connections a renewal round may take from a pool of {@code poolSize} (0 when
   * unknown): one, as always, and more only while one connection of the pool stays free for callers.
   */
  static int renewHelpers(int poolSize) {
    return Math.max(1, Math.min(RenewalChunks.MAX_HELPERS, poolSize - 2));
  }

  private static long micros(Duration d) {
    try {
      return TimeUnit.NANOSECONDS.toMicros(d.toNanos());
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE / 4;
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
