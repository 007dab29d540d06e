package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import static dev.dlock.jdbc.TestDatabase.SECRET;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import dev.dlock.internal.Abandonable;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockRequest;
import dev.dlock.testkit.RecordingContext;
import dev.dlock.testkit.StatementCounter;
import dev.dlock.testkit.VirtualTime;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

class PostgresBackendTest extends LeaseBackendCases {
  @RegisterExtension
  static final PostgresServer server = new PostgresServer();

  @BeforeAll
  static void startServer() throws Exception {
    server.requirePassword("app", SECRET);
  }

  @Override
  TestDatabase db() {
    return server;
  }

  @Override
  String shiftExpirySql() {
    return "UPDATE dlock_locks SET expires_at = now() + make_interval(secs => ?) WHERE name = ?";
  }

  @Override
  String timestampType() {
    return "TIMESTAMPTZ";
  }

  @Override
  List<String> workingSecretUrls() {
    String at = "127.0.0.1:" + server.port() + "/postgres";
    return List.of(server.passwordUrl(), "jdbc:postgresql://" + at + "?user=app&password=" + SECRET,
        "jdbc:postgresql://app:" + SECRET + "@" + at);
  }

  @Override
  List<String> failingSecretUrls() throws Exception {
    String closed = "127.0.0.1:" + TestDatabase.closedPort();
    String open = "127.0.0.1:" + server.port();
    return List.of("jdbc:postgresql://" + closed + "/postgres?user=app&password=" + SECRET,
        "jdbc:postgresql://app:" + SECRET + "@" + closed + "/postgres",
        "jdbc:postgresql://" + open + "/nosuchdb?user=app&password=" + SECRET,
        "jdbc:postgresql://" + open + "/postgres?user=app&password=" + SECRET + "-wrong",
        "jdbc:postgresql://app:" + SECRET + "-wrong@" + open + "/postgres");
  }

  @Override
  DataSource secretDataSource(boolean works) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {"127.0.0.1"});
    ds.setPortNumbers(new int[] {server.port()});
    ds.setDatabaseName("postgres");
    ds.setUser("app");
    ds.setPassword(works ? SECRET : SECRET + "-wrong");
    return ds;
  }

  /**
   * A round of 2,500 leases taken with acquire() sends three statements (chunks of
   * {@link Dialect#RENEW_CHUNK} on one connection), and a row stolen past the first chunk costs
   * that one lease only.
   */
  @Test
  void aRoundOfThousandsOfLeasesSendsAStatementPerChunkAndLosesOnlyTheStolenOne() throws Exception {
    int leases = 2_500;
    Duration lease = Duration.ofMinutes(5); // by the database clock too, so no row expires meanwhile
    VirtualTime time = new VirtualTime();
    StatementCounter counting = StatementCounter.onThisThread(LeaseBackend.RENEW_HELPER);
    List<String> lost = new CopyOnWriteArrayList<>();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db().url());
    config.setMaximumPoolSize(2);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      RenewCalls calls = new RenewCalls(JdbcLockBackend.builder().dataSource(counting.wrap(pool)).build());
      LockClient client = LockClient.builder().backend(calls.backend()).ticker(time.ticker())
          .scheduler(time.scheduler()).leaseTime(lease).listener(new LockListener() {
            @Override
            public void lost(String name, long token, LeaseLostException reason) {
              lost.add(name);
            }
          }).build();
      try {
        String prefix = name() + "-";
        for (int i = 0; i < leases; i++) {
          client.lock(prefix + i).acquire();
        }
        long before = counting.statements();
        time.advance(lease.dividedBy(3));
        assertThat(calls.last()).hasSize(leases);
        assertThat(counting.statements() - before).as("statements of one round of %d leases", leases)
            .isEqualTo(3);
        assertThat(lost).isEmpty();

        Grant stolen = calls.last().get(1_500);
        db().execute("UPDATE dlock_locks SET owner = 'thief' WHERE name = '" + stolen.name() + "'");
        time.advance(lease.dividedBy(3));
        assertThat(calls.last().indexOf(stolen)).as("its place in the round").isGreaterThanOrEqualTo(Dialect.RENEW_CHUNK);
        assertThat(lost).containsExactly(stolen.name());
      } finally {
        ((Abandonable) client).abandon(); // releasing 2,500 leases one by one would double the test's time
      }
    }
  }

  /**
   * The renewal statement looks each grant of a full chunk up by the primary key. Told that an
   * array holds 1,000 elements, PostgreSQL would rather hash the whole table, once per chunk.
   */
  @Test
  void renewalFindsEachGrantOfAChunkByThePrimaryKey() throws SQLException {
    backend(new RecordingContext("a")); // makes the tables
    server.execute("INSERT INTO dlock_locks (name, owner, token) SELECT 'plan-' || i, 'o', i"
        + " FROM generate_series(1, 5000) i", "ANALYZE dlock_locks");
    Object[] names = new Object[Dialect.RENEW_CHUNK];
    Object[] owners = new Object[names.length];
    Object[] tokens = new Object[names.length];
    for (int i = 0; i < names.length; i++) {
      names[i] = "plan-" + (i + 1);
      owners[i] = "o";
      tokens[i] = (long) i + 1;
    }
    StringBuilder plan = new StringBuilder();
    try (Connection c = server.dataSource().getConnection(); PreparedStatement ps =
        c.prepareStatement("EXPLAIN " + new PostgresDialect("dlock_locks", 0).renewStatement())) {
      ps.setLong(1, 1_000_000);
      ps.setArray(2, c.createArrayOf("text", names));
      ps.setArray(3, c.createArrayOf("text", owners));
      ps.setArray(4, c.createArrayOf("bigint", tokens));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
    }
    assertThat(plan.toString()).contains("Index Scan using dlock_locks_pkey")
        .doesNotContain("Seq Scan on dlock_locks");
  }

  /** {@link Database#run} against a real deadlock, whose victim each side's deadlock_timeout picks. */
  @Test
  void workChosenAsADeadlockVictimIsRunAgain() throws Exception {
    server.execute("CREATE TABLE retry_rows (id INT PRIMARY KEY, v INT NOT NULL)",
        "INSERT INTO retry_rows VALUES (1, 0), (2, 0)");
    DataSource ds = server.dataSource();
    Database db = new Database(ds, "test database", Duration.ofSeconds(30));
    AtomicInteger attempts = new AtomicInteger();
    CountDownLatch holdsRow2 = new CountDownLatch(1);
    try (Connection other = ds.getConnection()) {
      other.setAutoCommit(false);
      exec(other, "SET LOCAL deadlock_timeout = '10s'"); // so the work, not this side, is the victim
      exec(other, "UPDATE retry_rows SET v = v + 1 WHERE id = 1");

      CompletableFuture<Integer> work = CompletableFuture.supplyAsync(() -> db.run("update both rows", c -> {
        int attempt = attempts.incrementAndGet();
        c.setAutoCommit(false);
        try {
          exec(c, "SET LOCAL deadlock_timeout = '100ms'");
          exec(c, "UPDATE retry_rows SET v = v + 1 WHERE id = 2");
          holdsRow2.countDown();
          exec(c, "UPDATE retry_rows SET v = v + 1 WHERE id = 1"); // waits for the other side
          c.commit();
          return attempt;
        } catch (SQLException e) {
          c.rollback();
          throw e;
        } finally {
          c.setAutoCommit(true);
        }
      }));
      assertThat(holdsRow2.await(30, TimeUnit.SECONDS)).isTrue();
      // Waits for the work's row 2 while holding row 1: a cycle, which the work's side detects.
      exec(other, "UPDATE retry_rows SET v = v + 1 WHERE id = 2");
      other.commit();

      assertThat(work.get(30, TimeUnit.SECONDS)).as("the attempt that succeeded").isEqualTo(2);
    }
  }

  /**
   * A round of three chunks runs two of them at once, on two connections (neither of the first
   * two renewal statements starts until both have reached the server), and each grant keeps its
   * own outcome: only the grant stolen in the second chunk is reported lost.
   */
  @Test
  void aLargeRoundRunsTwoChunksAtOnceAndLosesOnlyTheStolenGrant() throws Exception {
    CyclicBarrier both = new CyclicBarrier(2);
    AtomicInteger renewals = new AtomicInteger();
    try (HikariDataSource pool = pool(4)) {
      LockBackend a = backend(new RecordingContext("a"), JdbcLockBackend.builder().dataSource(
          onRenewal(pool, () -> {
            if (renewals.incrementAndGet() <= 2) {
              both.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            }
          })));
      List<Grant> grants = heldRows(2_500);
      Grant stolen = grants.get(Dialect.RENEW_CHUNK + 500);
      db().execute("UPDATE dlock_locks SET owner = 'thief' WHERE name = '" + stolen.name() + "'");
      assertThat(a.renew(grants, LONG)).containsExactly(stolen);
      assertThat(renewals.get()).as("renewal statements").isEqualTo(3);
    }
  }

  /**
   * The second connection fails its first chunk (after the first connection has waited for that):
   * the chunk goes back to the first connection, and the round still reports exactly the grants
   * stolen, one in each chunk, whichever connection renewed it.
   */
  @Test
  void aChunkTheSecondConnectionFailsIsRenewedOnTheFirst() throws Exception {
    Thread caller = Thread.currentThread();
    CountDownLatch helperFailed = new CountDownLatch(1);
    try (HikariDataSource pool = pool(4)) {
      LockBackend a = backend(new RecordingContext("a"), JdbcLockBackend.builder().dataSource(
          onRenewal(pool, () -> {
            if (Thread.currentThread() != caller && helperFailed.getCount() > 0) {
              helperFailed.countDown();
              throw new SQLException("connection lost (test)", "08006");
            }
            assertThat(helperFailed.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the helper failed")
                .isTrue();
          })));
      List<Grant> grants = heldRows(2_500);
      List<Grant> stolen = List.of(grants.get(500), grants.get(1_500), grants.get(2_200));
      for (Grant g : stolen) {
        db().execute("UPDATE dlock_locks SET owner = 'thief' WHERE name = '" + g.name() + "'");
      }
      assertThat(a.renew(grants, LONG)).containsExactlyInAnyOrderElementsOf(stolen);
    }
  }

  /**
   * A round of four chunks on a pool of five runs them all at once, on four connections (no
   * renewal statement starts until four have reached the server), leaving one for callers; smaller
   * pools get fewer helpers, and a pool of unknown size one, as before.
   */
  @Test
  void aLargeRoundOnAPoolOfFiveRunsFourChunksAtOnce() throws Exception {
    CyclicBarrier four = new CyclicBarrier(4);
    AtomicInteger renewals = new AtomicInteger();
    HikariConfig config = new HikariConfig();
    config.setMaximumPoolSize(5);
    config.setDataSource(onRenewal(db().dataSource(), () -> {
      renewals.incrementAndGet();
      four.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }));
    try (HikariDataSource pool = new HikariDataSource(config)) {
      LockBackend a = backend(new RecordingContext("a"), JdbcLockBackend.builder().dataSource(pool));
      List<Grant> grants = heldRows(4 * Dialect.RENEW_CHUNK);
      Grant stolen = grants.get(3 * Dialect.RENEW_CHUNK + 7);
      db().execute("UPDATE dlock_locks SET owner = 'thief' WHERE name = '" + stolen.name() + "'");
      assertThat(a.renew(grants, LONG)).containsExactly(stolen);
      assertThat(renewals.get()).as("renewal statements").isEqualTo(4);
    }
    assertThat(List.of(0, 2, 3, 4, 5, 10)).map(LeaseBackend::renewHelpers).containsExactly(1, 1, 1, 2, 3, 3);
  }

  private HikariDataSource pool(int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db().url());
    config.setMaximumPoolSize(size);
    return new HikariDataSource(config);
  }

  /** Runs before a renewal statement; may throw to fail it. */
  private interface Gate {
    void enter() throws Exception;
  }

  /**
   * {@code ds}, running {@code gate} before each renewal statement (the one that unnests arrays),
   * on the thread about to send it. It claims to wrap nothing, so dlock does not see the pool.
   */
  private static DataSource onRenewal(DataSource ds, Gate gate) {
    return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
        new Class<?>[] {DataSource.class},
        (p, m, args) -> m.getName().equals("isWrapperFor") ? Boolean.FALSE
            : m.getName().equals("getConnection") ? gated((Connection) invoke(m, ds, args), gate)
            : invoke(m, ds, args));
  }

  private static Connection gated(Connection c, Gate gate) {
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
        new Class<?>[] {Connection.class},
        (p, m, args) -> {
          Object result = invoke(m, c, args);
          if (m.getName().equals("prepareStatement") && ((String) args[0]).contains("unnest(")) {
            PreparedStatement ps = (PreparedStatement) result;
            return Proxy.newProxyInstance(PreparedStatement.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, (q, n, more) -> {
                  if (n.getName().startsWith("execute")) {
                    gate.enter();
                  }
                  return invoke(n, ps, more);
                });
          }
          return result;
        });
  }

  /**
   * An uncontended cycle is two statements, the grant and a release that reads no waiter on the
   * row; a waiter that queued and left costs the next release one wake-up that finds no one (and
   * resets the count), not every release after it.
   */
  @Test
  void anUncontendedCycleIsTwoStatementsAndAWaiterGoneCostsOneWakeUp() throws SQLException {
    StatementCounter counting = StatementCounter.onThisThread(LeaseBackend.RENEW_HELPER);
    LockBackend a = backend(new RecordingContext("a"),
        JdbcLockBackend.builder().dataSource(counting.wrap(db().dataSource())));
    String name = name();
    assertThat(a.release(granted(a, name, "a:1"))).isTrue();
    long before = counting.sqlStatements();
    for (int i = 0; i < 3; i++) {
      assertThat(a.release(granted(a, name, "a:1"))).isTrue();
    }
    assertThat(counting.sqlStatements() - before).as("SQL statements of 3 uncontended cycles").isEqualTo(6);

    Grant held = granted(a, name, "a:1");
    LockBackend b = backend(new RecordingContext("b"));
    assertThat(b.tryAcquire(LockRequest.exclusive(name, "b:1", LONG, true)).isGranted()).isFalse();
    assertThat((Long) query("SELECT queued FROM dlock_locks WHERE name = ?", name)).as("ARMs counted").isPositive();
    b.cancel(name, "b:1");
    before = counting.sqlStatements();
    assertThat(a.release(held)).isTrue();
    assertThat(counting.sqlStatements() - before).as("the release after the waiter left").isEqualTo(2);
    before = counting.sqlStatements();
    assertThat(a.release(granted(a, name, "a:1"))).isTrue();
    assertThat(counting.sqlStatements() - before).as("the cycle after that").isEqualTo(2);
  }

  /**
   * A release racing a waiter's ARM wakes it: the ARM locks the lock row until it commits, and the
   * release, which waits for that commit, returns the count the ARM wrote and so wakes the queue.
   */
  @Test
  void aReleaseThatWaitsForAnArmInFlightWakesTheQueue() throws Exception {
    backend(new RecordingContext("a")); // makes the tables
    Dialect d = new PostgresDialect("dlock_locks", 0).forLockColumns(Set.of("queued"));
    String name = name();
    try (Connection holder = db().dataSource().getConnection();
        Connection waiter = db().dataSource().getConnection();
        Connection look = db().dataSource().getConnection()) {
      Long token = d.grant(holder, name, "a:1", TimeUnit.SECONDS.toMicros(30));
      assertThat(token).isNotNull();
      waiter.setAutoCommit(false);
      d.arm(waiter, name, "b:1", "dlock_test_inbox");
      long armPid = pid(waiter);
      CompletableFuture<Dialect.Released> released = CompletableFuture.supplyAsync(() -> {
        try {
          return d.releaseAndLook(holder, new Grant(name, "a:1", token));
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      // The server says when the release waits on the ARM's lock; nothing on the client can.
      while (!blockedBy(look, armPid)) {
        assertThat(released).as("the release waits for the ARM").isNotDone();
        assertThat(System.nanoTime()).as("time to see the release wait").isLessThan(deadline);
        Thread.sleep(5);
      }
      waiter.commit();
      assertThat(released.get(10, TimeUnit.SECONDS)).isEqualTo(Dialect.Released.QUEUE);
    }
  }

  /** A lock table of an older version, without the queued column, still works: a release also looks. */
  @Test
  void aTableWithoutTheQueuedColumnLooksAtEveryRelease() throws SQLException {
    String table = table("old");
    for (String statement : Schema.createStatements(new PostgresDialect(table, 0))) {
      db().execute(statement);
    }
    db().execute("ALTER TABLE " + table + " DROP COLUMN queued");
    StatementCounter counting = StatementCounter.onThisThread(LeaseBackend.RENEW_HELPER);
    LockBackend a = backend(new RecordingContext("a"),
        JdbcLockBackend.builder().dataSource(counting.wrap(db().dataSource())).table(table));
    String name = name();
    assertThat(a.release(granted(a, name, "a:1"))).isTrue();
    long before = counting.sqlStatements();
    assertThat(a.release(granted(a, name, "a:1"))).isTrue();
    assertThat(counting.sqlStatements() - before).as("SQL statements of a cycle").isEqualTo(3);
  }

  private static long pid(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static boolean blockedBy(Connection c, long pid) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE CAST(? AS int) = ANY (pg_blocking_pids(pid)))")) {
      ps.setLong(1, pid);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  private static @Nullable Object invoke(Method m, Object target, @Nullable Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
