package dev.dlock.jdbc;

/**
 * The statements of the fair, read-write and semaphore lease locks, for one dialect. Why a class
 * of its own: these kinds keep their holders in a table of their own ({@code {table}_holders},
 * one row per holder keyed by name and owner, plus one anchor row per lock that carries its last
 * token and permit count and is locked by every grant, release and cancel of that lock), and
 * only a few clock expressions differ between the databases, so the statements are written once
 * here with those expressions filled in, rather than three times in the dialects.
 *
 * <p>Their waiters queue in the waiter table as the exclusive lock's do, under a queue key of
 * kind letters and '|' before the owner (see {@link JdbcKinds#queueKey}), which no owner of an
 * exclusive waiter contains.
 */
final class KindSql {
  /** The anchor row: its last token and permit count, locked for the rest of the transaction. */
  final String lockAnchor;
  /** Adds the anchor row of a lock not seen before (auto-commit; a duplicate is ignored). */
  final String addAnchor;
  /** Sets the anchor's token and permit count. */
  final String updateAnchor;
  /** Deletes the holders of a lock whose lease ran out. */
  final String purgeExpired;
  /** The live holders of a lock: owner, kind, microseconds left. */
  final String holders;
  /** The live queue of a lock, oldest first: queue key and inbox. */
  final String queue;
  /** Adds a holder row. */
  final String insertHolder;
  /** Deletes a holder row if its token matches and it has not expired. */
  final String release;
  /** Deletes a holder row whatever its token or expiry (a cancel). */
  final String clear;
  /** Queues a waiter, keeping its place if queued, with its inbox and seen now. */
  final String arm;
  /** Removes a waiter's place. */
  final String leave;
  /** Tells a waiter's client to try again: a NOTIFY, or its inbox cleared for a poller to see. */
  final String wake;
  /** Whether the statement {@link #wake} is a query (PostgreSQL's pg_notify) rather than an update. */
  final boolean wakeIsQuery;

  KindSql(Dialect d) {
    String now;
    String plus;
    String minus;
    String left;
    String armSql;
    String wakeSql;
    if (d instanceof PostgresDialect) {
      now = "now()";
      plus = "now() + CAST(? AS BIGINT) * INTERVAL '1 microsecond'";
      minus = "now() - CAST(? AS BIGINT) * INTERVAL '1 microsecond'";
      left = "CAST(EXTRACT(EPOCH FROM expires_at - now()) * 1000000 AS BIGINT)";
      armSql = """
          INSERT INTO {table}_waiters AS w (name, owner, inbox, queued_at, seen_at)
          VALUES (?, ?, ?, now(), now())
          ON CONFLICT (name, owner) DO UPDATE SET inbox = EXCLUDED.inbox, seen_at = now()""";
      wakeSql = """
          SELECT pg_notify(inbox, name) FROM {table}_waiters WHERE name = ? AND owner = ?""";
      wakeIsQuery = true;
    } else if (d instanceof MariaDbDialect) {
      now = "UTC_TIMESTAMP(6)";
      plus = "UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND";
      minus = "UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND";
      left = "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at)";
      armSql = """
          INSERT INTO {table}_waiters (name, owner, inbox, queued_at, seen_at)
          VALUES (?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
          ON DUPLICATE KEY UPDATE inbox = VALUES(inbox), seen_at = UTC_TIMESTAMP(6)""";
      wakeSql = POLLER_WAKE;
      wakeIsQuery = false;
    } else {
      now = "CURRENT_TIMESTAMP";
      plus = "DATEADD(MICROSECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
      minus = "DATEADD(MICROSECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
      left = "DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, expires_at)";
      armSql = """
          MERGE INTO {table}_waiters AS w
          USING (VALUES (CAST(? AS VARCHAR(1024)), CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(64))))
            AS s(name, owner, inbox)
          ON w.name = s.name AND w.owner = s.owner
          WHEN MATCHED THEN UPDATE SET inbox = s.inbox, seen_at = CURRENT_TIMESTAMP
          WHEN NOT MATCHED THEN INSERT (name, owner, inbox, queued_at, seen_at)
            VALUES (s.name, s.owner, s.inbox, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)""";
      wakeSql = POLLER_WAKE;
      wakeIsQuery = false;
    }
    lockAnchor = d.sql("SELECT token, permits, " + d.clockMicros()
        + " FROM {table}_holders WHERE name = ? AND owner = ? FOR UPDATE");
    addAnchor = d.sql("INSERT INTO {table}_holders (name, owner, kind, token, permits, expires_at)"
        + " VALUES (?, ?, ?, 0, ?, NULL)");
    updateAnchor = d.sql("UPDATE {table}_holders SET token = ?, permits = ? WHERE name = ? AND owner = ?");
    purgeExpired = d.sql("DELETE FROM {table}_holders WHERE name = ? AND kind IN (?, ?) AND expires_at <= " + now);
    holders = d.sql("SELECT owner, kind, " + left + " FROM {table}_holders"
        + " WHERE name = ? AND kind IN (?, ?) AND expires_at > " + now + " ORDER BY token");
    queue = d.sql("SELECT owner, inbox FROM {table}_waiters WHERE name = ? AND owner LIKE ? AND seen_at > "
        + minus + " ORDER BY queued_at, owner");
    insertHolder = d.sql("INSERT INTO {table}_holders (name, owner, kind, token, permits, expires_at)"
        + " VALUES (?, ?, ?, ?, 0, " + plus + ")");
    release = d.sql("DELETE FROM {table}_holders WHERE name = ? AND owner = ? AND token = ? AND expires_at > " + now);
    clear = d.sql("DELETE FROM {table}_holders WHERE name = ? AND owner = ?");
    leave = d.sql("DELETE FROM {table}_waiters WHERE name = ? AND owner = ?");
    arm = d.sql(armSql);
    wake = d.sql(wakeSql);
  }

  // A poller sees its row gone from its inbox and wakes the waiter, which keeps its place.
  private static final String POLLER_WAKE = """
      UPDATE {table}_waiters SET inbox = '' WHERE name = ? AND owner = ? AND inbox <> ''""";
}
