package dev.dlock.jdbc;

import dev.dlock.spi.Grant;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL. Why these statements: an upsert whose DO UPDATE carries the expiry test grants a free
 * or expired lock and increments its token in one statement (a row locked by a concurrent grant
 * is re-checked once the lock is released, so two grants never both succeed); renewal passes a
 * chunk of grants as three arrays, joined to the table by its primary key, and gets back the rows
 * it extended; waking the next waiter deletes its queue row and NOTIFYs its client's inbox channel
 * with the lock name in the release's own transaction, so the notice goes out only once its
 * delete is committed. Where the lock table has the {@code queued} column (tables made by this
 * version), a waiter's ARM counts itself on the lock row and a release returns that count, so a
 * release that finds it zero skips the look at the queue: one statement; one that finds it not
 * zero goes straight to the wake-up, which resets the count when the queue is empty. Otherwise a release and
 * its look travel together in one round trip, as two statements.
 */
final class PostgresDialect extends Dialect {
  /**
   * The clock in microseconds, from date_part's double precision: within 1 µs, which a token
   * needs no closer (it is only to start above the tokens of a table that was lost). Why not
   * EXTRACT: from PostgreSQL 14 it gives numeric, exact but slow; its arithmetic cost 8-15 µs of
   * a 55-90 µs lock and unlock in a raw JDBC probe on one CPU.
   */
  private static final String MICROS = "CAST(date_part('epoch', now()) * 1000000 AS BIGINT)";

  private static final String GRANT = """
      INSERT INTO {table} AS l (name, owner, token, expires_at, acquired_at)
      VALUES (?, ?, {micros}, now() + ? * INTERVAL '1 microsecond', now())
      ON CONFLICT (name) DO UPDATE
        SET owner = EXCLUDED.owner, token = GREATEST(l.{next}, EXCLUDED.token),
            expires_at = EXCLUDED.expires_at, acquired_at = EXCLUDED.acquired_at
        WHERE l.owner IS NULL OR l.expires_at <= now() OR l.owner = EXCLUDED.owner
      RETURNING l.token""";

  private static final String HOLDER = """
      SELECT owner, CAST(EXTRACT(EPOCH FROM expires_at - now()) * 1000000 AS BIGINT)
      FROM {table} WHERE name = ?""";

  // Each array comes in through a sub-select, so the planner cannot count its elements: seeing a
  // thousand, it hashes the whole table once per chunk; not seeing them, it looks each grant up by
  // the primary key, and a chunk's cost stays independent of the table's size. It returns the
  // position (from 1) of each grant extended, a number instead of the grant's three columns.
  private static final String RENEW = """
      UPDATE {table} AS l SET expires_at = now() + ? * INTERVAL '1 microsecond'
      FROM unnest((SELECT CAST(? AS text[])), (SELECT CAST(? AS text[])), (SELECT CAST(? AS bigint[])))
        WITH ORDINALITY AS g(name, owner, token, at)
      WHERE l.name = g.name AND l.owner = g.owner AND l.token = g.token AND l.expires_at > now()
      RETURNING g.at""";

  private static final String INSPECT = """
      SELECT name, owner, token, CAST(EXTRACT(EPOCH FROM expires_at - now()) * 1000000 AS BIGINT)
      FROM {table} WHERE name = ? AND owner IS NOT NULL AND expires_at > now()""";

  private static final String INSPECT_ALL = """
      SELECT name, owner, token, CAST(EXTRACT(EPOCH FROM expires_at - now()) * 1000000 AS BIGINT)
      FROM {table} WHERE owner IS NOT NULL AND expires_at > now()""";

  private static final String RELEASE = """
      UPDATE {table} SET owner = NULL, expires_at = NULL
      WHERE name = ? AND owner = ? AND token = ? AND expires_at > now()""";

  private static final String ARM = """
      INSERT INTO {table}_waiters (name, owner, inbox, queued_at, seen_at)
      VALUES (?, ?, ?, now(), now())
      ON CONFLICT (name, owner) DO UPDATE SET seen_at = now()""";

  // Wakes only while the row is free: a grant made since the release will wake the queue itself.
  // Waiters of the other kinds (their keys hold a '|', see JdbcKinds) share the table but not this lock.
  private static final String WAKE_NEXT = """
      DELETE FROM {table}_waiters AS w WHERE (w.name, w.owner) = (
        SELECT q.name, q.owner FROM {table}_waiters AS q
        WHERE q.name = ? AND q.seen_at > now() - ? * INTERVAL '1 microsecond' AND q.owner NOT LIKE '%|%'
          AND EXISTS (SELECT 1 FROM {table} AS l WHERE l.name = q.name AND l.owner IS NULL)
        ORDER BY q.queued_at, q.owner LIMIT 1)
      RETURNING pg_notify(w.inbox, w.name)""";

  // The release and the look at the queue in one round trip: two statements, each with its own
  // snapshot, so the look sees every waiter queued before the release (see releaseAndWake).
  private static final String RELEASE_AND_LOOK = RELEASE + ";\n" + QUEUED;

  // The release of a table with the queued column: the row's count of ARMs comes back with it. An
  // ARM bumps the count under the lock row's lock, so the release either waits for that ARM's
  // commit and returns the new count (READ COMMITTED re-reads a row a concurrent writer changed),
  // or runs first, and then the waiter's try after its ARM finds the row free.
  private static final String RELEASE_COUNTED = RELEASE + "\nRETURNING queued";

  // Queues as ARM does and bumps the lock row's count, the row first (the join makes the insert
  // wait for it), so it locks rows in the order a release does. A name with no row counts
  // nothing: the waiter's next try inserts the row and is granted.
  private static final String ARM_COUNTED = """
      WITH w(name, owner, inbox) AS (VALUES (CAST(? AS varchar), CAST(? AS varchar), CAST(? AS varchar))),
        counted AS (UPDATE {table} AS l SET queued = l.queued + 1 FROM w WHERE l.name = w.name RETURNING l.name)
      INSERT INTO {table}_waiters (name, owner, inbox, queued_at, seen_at)
      SELECT w.name, w.owner, w.inbox, now(), now() FROM w LEFT JOIN counted ON true
      ON CONFLICT (name, owner) DO UPDATE SET seen_at = now()""";

  // The wake-up of a table with the queued column, which a release whose row counted ARMs runs
  // without a look first (the count says someone may queue). When it finds the queue empty it
  // resets the count, but only if no ARM bumped it since this statement's snapshot: an ARM that
  // did, committed or not, changed the row, and the UPDATE compares the row's latest count with
  // the one the snapshot saw. A waiter it wakes keeps the count, so the next release wakes again
  // and resets it then: a count left over costs one wake-up that finds no one, once.
  private static final String WAKE_COUNTED = "WITH woken AS (" + WAKE_NEXT + "),\n" + """
        reset AS (UPDATE {table} AS l SET queued = 0
          FROM (SELECT queued AS seen FROM {table} WHERE name = ?) AS s
          WHERE l.name = ? AND l.queued = s.seen AND l.queued > 0
            AND NOT EXISTS (SELECT 1 FROM {table}_waiters AS q WHERE q.name = ?))
      SELECT 1 FROM woken""";

  private static final String HEARTBEAT = """
      UPDATE {table}_waiters SET seen_at = now() WHERE inbox = ?""";

  private static final String PURGE = """
      DELETE FROM {table}_waiters WHERE seen_at < now() - ? * INTERVAL '1 microsecond'""";

  private final String grant = sql(GRANT);
  private final String renew = sql(RENEW);
  private final String releaseAndLook = sql(RELEASE_AND_LOOK);
  private final String releaseCounted = sql(RELEASE_COUNTED);
  private final String armCounted = sql(ARM_COUNTED);
  private final String wakeCounted = sql(WAKE_COUNTED);
  // Whether the lock table has the queued column; a table of an older version has not.
  private final boolean counted;

  PostgresDialect(String table, int timeoutSeconds) {
    this(table, timeoutSeconds, false);
  }

  private PostgresDialect(String table, int timeoutSeconds, boolean counted) {
    super(table, timeoutSeconds);
    this.counted = counted;
    use(sql(HOLDER), sql(INSPECT), sql(INSPECT_ALL), sql(RELEASE), sql(ARM), sql(WAKE_NEXT),
        sql(HEARTBEAT), sql(PURGE));
  }

  /** LISTEN on a client's inbox, an identifier dlock generated (letters, digits, '_'). */
  static String listenSql(String inbox) {
    return "LISTEN " + inbox;
  }

  @Override
  String schemaResource() {
    return "postgresql.sql";
  }

  @Override
  String clockMicros() {
    return MICROS;
  }

  @Override
  String timestampType() {
    return "TIMESTAMPTZ";
  }

  @Override
  @Nullable Long grant(Connection c, String name, String owner, long leaseMicros) throws SQLException {
    return queryToken(c, grant, name, owner, leaseMicros);
  }

  /** With the queued column, a dialect that counts ARMs on the lock row. */
  @Override
  Dialect forLockColumns(Set<String> columns) {
    return columns.contains("queued") == counted ? this : new PostgresDialect(table, timeoutSeconds(), !counted);
  }

  @Override
  void arm(Connection c, String name, String owner, String inbox) throws SQLException {
    if (!counted) {
      super.arm(c, name, owner, inbox);
      return;
    }
    try (PreparedStatement ps = prepare(c, armCounted)) {
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setString(3, inbox);
      ps.executeUpdate();
    }
  }

  @Override
  Released releaseAndLook(Connection c, Grant g) throws SQLException {
    if (counted) {
      return releaseCounted(c, g);
    }
    try (PreparedStatement ps = prepare(c, releaseAndLook)) {
      ps.setString(1, g.name());
      ps.setString(2, g.owner());
      ps.setLong(3, g.token());
      ps.setString(4, g.name());
      ps.execute();
      if (ps.getUpdateCount() != 1) {
        return Released.NOT_HELD;
      }
      ps.getMoreResults();
      try (ResultSet rs = ps.getResultSet()) {
        return queue(rs);
      }
    }
  }

  private Released releaseCounted(Connection c, Grant g) throws SQLException {
    try (PreparedStatement ps = prepare(c, releaseCounted)) {
      ps.setString(1, g.name());
      ps.setString(2, g.owner());
      ps.setLong(3, g.token());
      try (ResultSet rs = ps.executeQuery()) {
        return !rs.next() ? Released.NOT_HELD : rs.getLong(1) == 0 ? Released.NO_QUEUE : Released.QUEUE;
      }
    }
  }

  @Override
  @Nullable Dequeued wakeNext(Connection c, String name, long liveMicros) throws SQLException {
    if (!counted) {
      return super.wakeNext(c, name, liveMicros);
    }
    try (PreparedStatement ps = prepare(c, wakeCounted)) {
      ps.setString(1, name);
      ps.setLong(2, liveMicros);
      ps.setString(3, name);
      ps.setString(4, name);
      ps.setString(5, name);
      ps.execute();
    }
    return null;
  }

  /** The renewal statement, for a test of its plan. */
  String renewStatement() {
    return renew;
  }

  @Override
  Set<Grant> renewChunk(Connection c, List<Grant> grants, long leaseMicros) throws SQLException {
    BitSet at = renewChunkAt(c, grants, leaseMicros);
    Set<Grant> renewed = new HashSet<>();
    for (int i = at.nextSetBit(0); i >= 0; i = at.nextSetBit(i + 1)) {
      renewed.add(grants.get(i));
    }
    return renewed;
  }

  @Override
  BitSet renewChunkAt(Connection c, List<Grant> grants, long leaseMicros) throws SQLException {
    BitSet at = new BitSet(grants.size());
    byArrays(c, renew, grants, leaseMicros, "text", "bigint", rs -> at.set(rs.getInt(1) - 1));
    return at;
  }
}
