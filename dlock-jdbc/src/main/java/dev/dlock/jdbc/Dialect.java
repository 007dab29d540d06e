package dev.dlock.jdbc;

import dev.dlock.LockException;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockInfo;
import dev.dlock.spi.Ticker;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL of one database. Why one subclass per database: the atomic grant, the batch renewal and
 * the clock functions differ too much between PostgreSQL, MariaDB/MySQL and H2 to share text, so
 * each subclass keeps all of its database's statements together as constants, reviewable in one
 * place. This base class binds the statements whose parameters are the same everywhere (the order
 * is given on each method). In every template only the validated table name is substituted for
 * {@code {table}}; every value is a bind parameter. Times come from the database clock only.
 *
 * <p>Tokens too: every grant of an exclusive lock writes the larger of the row's token + 1 +
 * {@value #SPARE_TOKENS} and the database clock in microseconds since 1970 ({@code {micros}} in a
 * template; {@code {next}} is the row's token + 1 + {@value #SPARE_TOKENS}). The tokens between
 * are left spare for the engine's hand-offs within the holder's client, which send nothing. The
 * counter alone would restart at 1 when a row or the whole table is lost; the clock part starts
 * the next token above every token granted before, as long as the database clock never steps back
 * and no name is granted more than a million / 16 times a second.
 */
abstract class Dialect {
  private static final Logger log = LoggerFactory.getLogger(Dialect.class);
  /** The tokens an exclusive grant leaves free after its own, for hand-offs within its client. */
  static final int SPARE_TOKENS = 15;
  /** The statements of one dialect, in the parameter order the methods below document. */
  record Statements(String holder, String inspect, String inspectAll, String release, String clear,
      String arm, String leave, String queued, String wakeNext, String heartbeat, String purge,
      String inboxOwners, String leaveAll) {}

  /**
   * What a release found: the lease was not held, or it was and the queue is empty, or not (for
   * PostgreSQL with the queued column: may not be, as the count of ARMs on the row says).
   */
  enum Released { NOT_HELD, NO_QUEUE, QUEUE }

  /** The queue row a wake-up removed, for {@link #ring}. */
  record Dequeued(String name, String owner, String inbox) {}

  final String table;
  private final int timeoutSeconds;
  // Set by use() in each subclass constructor; read through statements().
  private @Nullable Statements sql;
  private volatile boolean ringFailed;

  Dialect(String table, int timeoutSeconds) {
    this.table = table;
    this.timeoutSeconds = timeoutSeconds;
  }

  /** Called by each subclass constructor with its statements, table name already substituted. */
  // The statements every dialect writes the same way.
  private static final String CLEAR = """
      UPDATE {table} SET owner = NULL, expires_at = NULL WHERE name = ? AND owner = ?""";

  private static final String LEAVE = """
      DELETE FROM {table}_waiters WHERE name = ? AND owner = ?""";

  /** Whether anyone queues for a name: far cheaper than the wake-up, which most releases skip. */
  static final String QUEUED = """
      SELECT EXISTS (SELECT 1 FROM {table}_waiters WHERE name = ?)""";

  private static final String INBOX_OWNERS = """
      SELECT owner FROM {table}_waiters WHERE inbox = ?""";

  private static final String LEAVE_ALL = """
      DELETE FROM {table}_waiters WHERE inbox = ?""";

  /** Sets the statements that differ by dialect, beside the portable ones above. */
  final void use(String holder, String inspect, String inspectAll, String release, String arm,
      String wakeNext, String heartbeat, String purge) {
    this.sql = new Statements(holder, inspect, inspectAll, release, sql(CLEAR), arm, sql(LEAVE),
        sql(QUEUED), wakeNext, heartbeat, purge, sql(INBOX_OWNERS), sql(LEAVE_ALL));
  }

  /** The dialect for the database behind {@code meta}, or a LockException naming the product. */
  static Dialect detect(DatabaseMetaData meta, String table, int timeoutSeconds) throws SQLException {
    String product = meta.getDatabaseProductName();
    String version = meta.getDatabaseProductVersion();
    int major = meta.getDatabaseMajorVersion();
    int minor = meta.getDatabaseMinorVersion();
    String p = product.toLowerCase(Locale.ROOT);
    boolean mariaDb = p.contains("mariadb") || version.toLowerCase(Locale.ROOT).contains("mariadb");
    if (p.contains("postgresql") && atLeast(major, minor, 9, 5)) {
      return new PostgresDialect(table, timeoutSeconds);
    }
    if (mariaDb && atLeast(major, minor, 10, 6)) {
      return new MariaDbDialect(table, timeoutSeconds, false);
    }
    if (!mariaDb && p.contains("mysql") && atLeast(major, minor, 8, 0)) {
      return new MariaDbDialect(table, timeoutSeconds, true);
    }
    if (p.equals("h2") && major >= 2) {
      return new H2Dialect(table, timeoutSeconds);
    }
    throw new LockException(String.format("dlock-jdbc does not support database '%s' version %s;"
        + " it supports PostgreSQL 9.5+, MariaDB 10.6+, MySQL 8.0.17+ and H2 2.x", product, version));
  }

  private static boolean atLeast(int major, int minor, int wantMajor, int wantMinor) {
    return major > wantMajor || (major == wantMajor && minor >= wantMinor);
  }

  /** The waiter-queue table beside the lock table. */
  final String waitersTable() {
    return table + "_waiters";
  }

  /** The holders table of the fair, read-write and semaphore locks (see {@link JdbcKinds}). */
  final String holdersTable() {
    return table + "_holders";
  }

  /** The file beside this class holding the CREATE statements. */
  abstract String schemaResource();

  /**
   * What stands for {@code {collation}} in {@link #schemaResource()}: a constant of the dialect's,
   * never configuration, so one file serves servers that name the same collation differently.
   */
  String collation() {
    return "";
  }

  /** The database clock in whole microseconds since 1970-01-01 UTC, as an SQL expression. */
  abstract String clockMicros();

  /** The type name the JDBC driver reports for the timestamp columns, upper case. */
  abstract String timestampType();

  /**
   * The dialect for a lock table with these columns (lower case), decided once its shape is
   * checked: one that uses an optional column where the table has it; this one by default.
   */
  Dialect forLockColumns(Set<String> columns) {
    return this;
  }

  /** True where tables are qualified by catalog (MySQL's database) rather than schema. */
  boolean qualifiesByCatalog() {
    return false;
  }

  // ---- the lock row

  /**
   * Grants {@code name} to {@code owner} if free, expired, or already {@code owner}'s, with the next
   * token; null if held by another. Why its own grant is granted again: an owner stands for one
   * acquisition, so a row it holds can only be a grant whose answer it never had (a statement that
   * committed, then timed out, or work the database ran again). Refused, it would wait a lease for
   * itself; granted, it gets a token above the lost one, which nobody used.
   */
  abstract @Nullable Long grant(Connection c, String name, String owner, long leaseMicros)
      throws SQLException;

  /**
   * The most grants one renewal statement carries. Why a bound: one statement's time grows with its
   * grants, and past some tens of thousands it runs into the query timeout; chunks of this size
   * keep each statement a few milliseconds while 100,000 leases still take only 100 statements.
   */
  static final int RENEW_CHUNK = 1_000;

  /**
   * Extends the leases still held by their owner with their token, at most {@link #RENEW_CHUNK}
   * per statement, all on {@code c}; returns those extended.
   */
  final Set<Grant> renew(Connection c, List<Grant> grants, long leaseMicros) throws SQLException {
    if (grants.size() <= RENEW_CHUNK) {
      return renewChunk(c, grants, leaseMicros);
    }
    Set<Grant> renewed = new HashSet<>();
    for (int from = 0; from < grants.size(); from += RENEW_CHUNK) {
      renewed.addAll(renewChunk(c, grants.subList(from, Math.min(grants.size(), from + RENEW_CHUNK)),
          leaseMicros));
    }
    return renewed;
  }

  /**
   * {@link #renew} for at most {@link #RENEW_CHUNK} grants, in one statement (MariaDB: two when
   * some are not extended).
   */
  abstract Set<Grant> renewChunk(Connection c, List<Grant> grants, long leaseMicros) throws SQLException;

  /**
   * {@link #renewChunk}, answered as the positions in {@code grants} of those extended. Why
   * positions: a round of 100,000 leases then builds no set of grants to match them against; a
   * dialect whose statement can return the positions overrides this.
   */
  BitSet renewChunkAt(Connection c, List<Grant> grants, long leaseMicros) throws SQLException {
    Set<Grant> extended = renewChunk(c, grants, leaseMicros);
    BitSet at = new BitSet(grants.size());
    for (int i = 0; i < grants.size(); i++) {
      if (extended.contains(grants.get(i))) {
        at.set(i);
      }
    }
    return at;
  }

  /** The "held" answer: the holder and its time left by the database clock. */
  Attempt held(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = prepare(c, statements().holder())) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Attempt.held(Duration.ZERO, null);
        }
        @Nullable String owner = rs.getString(1); // SQL NULL when the row is free
        long micros = rs.getLong(2);
        if (owner == null || rs.wasNull() || micros <= 0) {
          return Attempt.held(Duration.ZERO, owner);
        }
        return Attempt.held(Duration.of(micros, ChronoUnit.MICROS), owner);
      }
    }
  }

  /** The unexpired grants of the given name (one or none), or of every name if {@code name} is null. */
  List<LockInfo> inspect(Connection c, @Nullable String name) throws SQLException {
    List<LockInfo> found = new ArrayList<>();
    Statements sql = statements();
    try (PreparedStatement ps = prepare(c, name == null ? sql.inspectAll() : sql.inspect())) {
      if (name != null) {
        ps.setString(1, name);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long micros = rs.getLong(4);
          if (micros > 0) {
            found.add(new LockInfo(rs.getString(1), rs.getString(2), rs.getLong(3),
                Duration.of(micros, ChronoUnit.MICROS)));
          }
        }
      }
    }
    return found;
  }

  /** Clears owner and expiry if (name, owner, token) still holds an unexpired lease; keeps the row. */
  boolean release(Connection c, Grant g) throws SQLException {
    return update(c, statements().release(), g.name(), g.owner(), g.token()) == 1;
  }

  /**
   * Releases {@code g} as {@link #release} does and, if it was held and someone queues for the
   * name, wakes the next waiter as {@link #wakeNext} does, in a transaction of its own. Why apart:
   * the look at the queue is cheap and the wake-up is not, and most releases find no queue. The
   * look runs after the release has committed, so it sees every waiter that queued before: a
   * waiter queues, then tries the row, and that try either saw the row free or waited on the
   * release's row lock. A wake-up that fails is logged, not thrown, as the release has happened;
   * the waiter's own retry, at least once per the client's {@code maxPollInterval}, stands in.
   */
  final boolean releaseAndWake(Connection c, Grant g, long liveMicros) throws SQLException {
    Released r = releaseAndLook(c, g);
    if (r == Released.QUEUE) {
      try {
        ringQuietly(c, wakeNext(c, g.name(), liveMicros));
      } catch (SQLException e) {
        log.warn("dlock: released lock '{}' but could not wake its next waiter, which will find it"
            + " free at its next retry: {}", g.name(), e.toString());
      }
    }
    return r != Released.NOT_HELD;
  }

  /**
   * Releases {@code g} and, if it was held, looks at the queue of its name with a snapshot taken
   * after the release. The default takes two round trips; a dialect that can send both
   * statements at once overrides it.
   */
  Released releaseAndLook(Connection c, Grant g) throws SQLException {
    if (!release(c, g)) {
      return Released.NOT_HELD;
    }
    try (PreparedStatement ps = prepare(c, statements().queued())) {
      ps.setString(1, g.name());
      try (ResultSet rs = ps.executeQuery()) {
        return queue(rs);
      }
    }
  }

  /** The look's answer, the one boolean row of {@link #QUEUED}. */
  static Released queue(ResultSet rs) throws SQLException {
    return rs.next() && rs.getBoolean(1) ? Released.QUEUE : Released.NO_QUEUE;
  }

  /** Clears owner and expiry if {@code owner} holds the row, whatever its token or expiry. */
  boolean clear(Connection c, String name, String owner) throws SQLException {
    return update(c, statements().clear(), name, owner) == 1;
  }

  // ---- the waiter queue

  /** Queues {@code owner} for {@code name} (keeping its place if queued) and marks it seen now. */
  void arm(Connection c, String name, String owner, String inbox) throws SQLException {
    update(c, statements().arm(), name, owner, inbox);
  }

  /** Removes {@code owner}'s place in the queue of {@code name}. */
  void leave(Connection c, String name, String owner) throws SQLException {
    update(c, statements().leave(), name, owner);
  }

  /**
   * Removes the oldest waiter of {@code name} seen within {@code liveMicros} and, where the
   * database can, notifies its inbox in the same transaction. Its removal is the wake-up. Returns
   * the row removed where {@link #ring} needs it once the removal has committed, else null.
   */
  @Nullable Dequeued wakeNext(Connection c, String name, long liveMicros) throws SQLException {
    try (PreparedStatement ps = prepare(c, statements().wakeNext())) {
      ps.setString(1, name);
      ps.setLong(2, liveMicros);
      ps.execute();
    }
    return null;
  }

  /** Runs the dialect's wake-up statement, which returns the row it removed (name, owner, inbox). */
  final @Nullable Dequeued dequeue(Connection c, String statement, String name, long liveMicros)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, statement)) {
      ps.setString(1, name);
      ps.setLong(2, liveMicros);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Dequeued(rs.getString(1), rs.getString(2), rs.getString(3)) : null;
      }
    }
  }

  /**
   * Rings the bell of the client whose waiter {@code woken} a committed wake-up removed, so it
   * looks at its queue now rather than at its next round ({@link InboxPoller}); nothing by default.
   */
  void ring(Connection c, Dequeued woken) throws SQLException {}

  /**
   * How this database's rings reach a waiting client, whose waits run on {@code ticker};
   * {@link Bell#NONE} by default.
   */
  Bell bell(PgListener.Opener opener, Ticker ticker) {
    return Bell.NONE;
  }

  /**
   * Rings for {@code woken}, if any; a ring that fails is logged (the first as a warning), as the
   * waiter's next round finds its wake-up anyway.
   */
  final void ringQuietly(Connection c, @Nullable Dequeued woken) {
    if (woken == null) {
      return;
    }
    try {
      ring(c, woken);
    } catch (SQLException | RuntimeException e) {
      if (ringFailed) {
        log.debug("dlock: could not ring the waiter of lock '{}': {}", woken.name(), e.toString());
      } else {
        ringFailed = true;
        log.warn("dlock: could not ring the waiter of lock '{}', which finds the lock free at its"
            + " inbox's next round (further failures are logged at debug level): {}", woken.name(), e.toString());
      }
    }
  }

  /**
   * Marks every waiter of {@code inbox} seen now, and drops rows unseen for {@code purgeMicros};
   * returns how many rows of {@code inbox} it found.
   */
  int heartbeat(Connection c, String inbox, long purgeMicros) throws SQLException {
    int seen = update(c, statements().heartbeat(), inbox);
    update(c, statements().purge(), purgeMicros);
    return seen;
  }

  /** The owners still queued for {@code inbox}; one that is gone was woken (or purged). */
  Set<String> inboxOwners(Connection c, String inbox) throws SQLException {
    Set<String> owners = new HashSet<>();
    try (PreparedStatement ps = prepare(c, statements().inboxOwners())) {
      ps.setString(1, inbox);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          owners.add(rs.getString(1));
        }
      }
    }
    return owners;
  }

  /** Runs a grant statement that returns the new token as its one row, or no row when held. */
  final @Nullable Long queryToken(Connection c, String statement, String name, String owner,
      long leaseMicros) throws SQLException {
    try (PreparedStatement ps = prepare(c, statement)) {
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setLong(3, leaseMicros);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : null;
      }
    }
  }

  /**
   * Renews by one statement that takes the grants as three arrays (names, owners, tokens) after the
   * lease, and returns the rows it extended; for databases with array parameters.
   */
  final Set<Grant> renewByArrays(Connection c, String statement, List<Grant> grants, long leaseMicros,
      String textType, String bigintType) throws SQLException {
    Set<Grant> renewed = new HashSet<>();
    byArrays(c, statement, grants, leaseMicros, textType, bigintType,
        rs -> renewed.add(new Grant(rs.getString(1), rs.getString(2), rs.getLong(3))));
    return renewed;
  }

  /** One row a renewal statement returns. */
  interface RenewedRow {
    void read(ResultSet rs) throws SQLException;
  }

  /**
   * Runs a renewal statement that takes the grants as three arrays (names, owners, tokens) after
   * the lease, handing each row it returns to {@code row}.
   */
  final void byArrays(Connection c, String statement, List<Grant> grants, long leaseMicros, String textType,
      String bigintType, RenewedRow row) throws SQLException {
    int n = grants.size();
    Object[] names = new Object[n];
    Object[] owners = new Object[n];
    Object[] tokens = new Object[n];
    for (int i = 0; i < n; i++) {
      Grant g = grants.get(i);
      names[i] = g.name();
      owners[i] = g.owner();
      tokens[i] = g.token();
    }
    Array a1 = c.createArrayOf(textType, names);
    Array a2 = c.createArrayOf(textType, owners);
    Array a3 = c.createArrayOf(bigintType, tokens);
    try (PreparedStatement ps = prepare(c, statement)) {
      ps.setLong(1, leaseMicros);
      ps.setArray(2, a1);
      ps.setArray(3, a2);
      ps.setArray(4, a3);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          row.read(rs);
        }
      }
    } finally {
      a1.free();
      a2.free();
      a3.free();
    }
  }

  /** Removes every waiter of {@code inbox}: the client is closing. Returns how many it removed. */
  int leaveAll(Connection c, String inbox) throws SQLException {
    return update(c, statements().leaveAll(), inbox);
  }

  // ---- helpers

  /** Work whose statements commit together. */
  interface Tx<T> {
    T run() throws SQLException;
  }

  static <T> T inTransaction(Connection c, Tx<T> work) throws SQLException {
    c.setAutoCommit(false);
    try {
      T result = work.run();
      c.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  /** The statements; a subclass that never called use() is a bug, reported as such. */
  private Statements statements() {
    Statements s = sql;
    if (s == null) {
      throw new IllegalStateException(getClass().getSimpleName() + " never called use(...)");
    }
    return s;
  }

  final String sql(String template) {
    return template.replace("{table}", table).replace("{micros}", clockMicros())
        .replace("{next}", "token + " + (1 + SPARE_TOKENS));
  }

  final int timeoutSeconds() {
    return timeoutSeconds;
  }

  final PreparedStatement prepare(Connection c, String statement) throws SQLException {
    PreparedStatement ps = c.prepareStatement(statement);
    if (timeoutSeconds > 0) {
      ps.setQueryTimeout(timeoutSeconds);
    }
    return ps;
  }

  private int update(Connection c, String statement, Object... args) throws SQLException {
    try (PreparedStatement ps = prepare(c, statement)) {
      for (int i = 0; i < args.length; i++) {
        if (args[i] instanceof Long l) {
          ps.setLong(i + 1, l);
        } else {
          ps.setString(i + 1, (String) args[i]);
        }
      }
      return ps.executeUpdate();
    }
  }

  /**
   * A table (or H2's token sequence) that does not exist: PostgreSQL 42P01, MariaDB/MySQL error
   * 1146, H2 42102 to 42104 (42104 when the database holds no table at all), H2's sequence 90036.
   */
  static boolean isMissingTable(SQLException e) {
    int code = e.getErrorCode();
    return "42P01".equals(e.getSQLState()) || code == 1146 || (code >= 42102 && code <= 42104)
        || code == 90036;
  }

  /** A unique-key violation: PostgreSQL and H2 by SQLState, MariaDB/MySQL by error 1062. */
  static boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState()) || e.getErrorCode() == 1062;
  }
}
