package dev.dlock.jdbc;

import dev.dlock.spi.Grant;
import dev.dlock.spi.Ticker;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * H2 2.x. Why these statements: a MERGE whose WHEN MATCHED branch carries the expiry test grants
 * and increments the token in one statement, and wrapping it in FINAL TABLE returns the token in
 * the same round trip. H2 re-checks a row's condition after waiting for its lock, so two grants
 * cannot both pass; two first-ever grants of a name race on the primary key, and the loser reads
 * as "held". Renewal merges a chunk of grants, passed as three arrays, into the rows they match
 * and reads back the rows it extended. H2 cannot notify a client: waking the next waiter deletes
 * its queue row, which that client's inbox poller notices; the delete returns the row's inbox,
 * which the releaser rings in this JVM (see {@link LocalBell}).
 */
final class H2Dialect extends Dialect {
  private static final String MICROS =
      "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP)";

  private static final String GRANT = """
      SELECT token FROM FINAL TABLE (
        MERGE INTO {table} AS l
        USING (VALUES (CAST(? AS VARCHAR(1024)), CAST(? AS VARCHAR(255)), CAST(? AS BIGINT)))
          AS s(name, owner, micros)
        ON l.name = s.name
        WHEN MATCHED AND (l.owner IS NULL OR l.expires_at <= CURRENT_TIMESTAMP OR l.owner = s.owner) THEN UPDATE
          SET owner = s.owner, token = GREATEST(l.{next}, {micros}),
              expires_at = DATEADD(MICROSECOND, s.micros, CURRENT_TIMESTAMP),
              acquired_at = CURRENT_TIMESTAMP
        WHEN NOT MATCHED THEN INSERT (name, owner, token, expires_at, acquired_at)
          VALUES (s.name, s.owner, {micros}, DATEADD(MICROSECOND, s.micros, CURRENT_TIMESTAMP),
                  CURRENT_TIMESTAMP))""";

  private static final String HOLDER = """
      SELECT owner, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, expires_at)
      FROM {table} WHERE name = ?""";

  // A MERGE, as its ON clause looks each grant up by the primary key; an UPDATE whose WHERE holds
  // (name, owner, token) IN (SELECT ... UNNEST ...) scans the whole table for each grant.
  private static final String RENEW = """
      SELECT name, owner, token FROM FINAL TABLE (
        MERGE INTO {table} AS l
        USING (SELECT CAST(? AS BIGINT), u.* FROM UNNEST(CAST(? AS VARCHAR ARRAY),
            CAST(? AS VARCHAR ARRAY), CAST(? AS BIGINT ARRAY)) AS u(name, owner, token))
          AS g(micros, name, owner, token)
        ON l.name = g.name AND l.owner = g.owner AND l.token = g.token
        WHEN MATCHED AND l.expires_at > CURRENT_TIMESTAMP THEN UPDATE
          SET expires_at = DATEADD(MICROSECOND, g.micros, CURRENT_TIMESTAMP))""";

  private static final String INSPECT = """
      SELECT name, owner, token, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, expires_at)
      FROM {table} WHERE name = ? AND owner IS NOT NULL AND expires_at > CURRENT_TIMESTAMP""";

  private static final String INSPECT_ALL = """
      SELECT name, owner, token, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, expires_at)
      FROM {table} WHERE owner IS NOT NULL AND expires_at > CURRENT_TIMESTAMP""";

  private static final String RELEASE = """
      UPDATE {table} SET owner = NULL, expires_at = NULL
      WHERE name = ? AND owner = ? AND token = ? AND expires_at > CURRENT_TIMESTAMP""";

  private static final String ARM = """
      MERGE INTO {table}_waiters AS w
      USING (VALUES (CAST(? AS VARCHAR(1024)), CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(64))))
        AS s(name, owner, inbox)
      ON w.name = s.name AND w.owner = s.owner
      WHEN MATCHED THEN UPDATE SET seen_at = CURRENT_TIMESTAMP
      WHEN NOT MATCHED THEN INSERT (name, owner, inbox, queued_at, seen_at)
        VALUES (s.name, s.owner, s.inbox, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)""";

  private static final String WAKE_NEXT = """
      DELETE FROM {table}_waiters WHERE (name, owner) IN (
        SELECT name, owner FROM {table}_waiters
        WHERE name = ? AND seen_at > DATEADD(MICROSECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP)
          AND owner NOT LIKE '%|%'
        ORDER BY queued_at, owner FETCH FIRST ROW ONLY)""";

  private static final String WAKE_NEXT_RETURNING = "SELECT name, owner, inbox FROM OLD TABLE ("
      + WAKE_NEXT + ")";

  private static final String HEARTBEAT = """
      UPDATE {table}_waiters SET seen_at = CURRENT_TIMESTAMP WHERE inbox = ?""";

  private static final String PURGE = """
      DELETE FROM {table}_waiters
      WHERE seen_at < DATEADD(MICROSECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP)""";

  private final String grant = sql(GRANT);
  private final String renew = sql(RENEW);
  private final String wakeNextReturning = sql(WAKE_NEXT_RETURNING);

  H2Dialect(String table, int timeoutSeconds) {
    super(table, timeoutSeconds);
    use(sql(HOLDER), sql(INSPECT), sql(INSPECT_ALL), sql(RELEASE), sql(ARM), sql(WAKE_NEXT),
        sql(HEARTBEAT), sql(PURGE));
  }

  @Override
  String schemaResource() {
    return "h2.sql";
  }

  @Override
  String clockMicros() {
    return MICROS;
  }

  @Override
  String timestampType() {
    return "TIMESTAMP WITH TIME ZONE";
  }

  @Override
  @Nullable Dequeued wakeNext(Connection c, String name, long liveMicros) throws SQLException {
    return dequeue(c, wakeNextReturning, name, liveMicros);
  }

  @Override
  void ring(Connection c, Dequeued woken) {
    LocalBell.ring(woken.inbox());
  }

  @Override
  Bell bell(PgListener.Opener opener, Ticker ticker) {
    return new LocalBell(ticker);
  }

  @Override
  @Nullable Long grant(Connection c, String name, String owner, long leaseMicros) throws SQLException {
    try {
      return queryToken(c, grant, name, owner, leaseMicros);
    } catch (SQLException e) {
      if (isDuplicateKey(e)) {
        return null;
      }
      throw e;
    }
  }

  @Override
  Set<Grant> renewChunk(Connection c, List<Grant> grants, long leaseMicros) throws SQLException {
    return renewByArrays(c, renew, grants, leaseMicros, "VARCHAR", "BIGINT");
  }
}
