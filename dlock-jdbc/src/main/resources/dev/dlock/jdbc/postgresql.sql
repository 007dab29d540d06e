-- The dlock lease-lock tables (scheme S1) for PostgreSQL 9.5 or later.
-- dlock creates them when absent; run this yourself when the application may not create tables,
-- replacing dlock_locks everywhere if you configured another table name.
--
-- dlock_locks: one row per lock name. A released lock keeps its row (owner and expiry cleared).
-- A fencing token is the larger of the row's last token + 16 (the 15 between are left spare for
-- hand-offs within the holder's client, which send nothing) and the database clock in
-- microseconds, so tokens keep growing even if rows are lost. Expiry is decided with the
-- database clock, now(), so the times are timestamptz. Grants, renewals and releases change no
-- indexed column, so with room left on each page (fillfactor) the new row version goes on the
-- same page and the index is not touched (a HOT update): renewing 100,000 leases then writes
-- no index entries and the table does not grow between vacuums. queued counts the waiters that
-- queued for the name since a release last found its queue empty: a release that reads zero does
-- not look at the queue. It is optional; without it every release looks (an extra statement).
CREATE TABLE IF NOT EXISTS dlock_locks (
  name        VARCHAR(255) NOT NULL PRIMARY KEY,
  owner       VARCHAR(255),
  token       BIGINT       NOT NULL,
  expires_at  TIMESTAMPTZ,
  acquired_at TIMESTAMPTZ,
  queued      BIGINT       NOT NULL DEFAULT 0
) WITH (fillfactor = 70);

-- dlock_locks_waiters: the clients waiting for a lock, oldest first. A release removes the oldest
-- live row of its name and notifies that client's inbox (a LISTEN channel), so one waiter wakes
-- per release. Waiting clients refresh seen_at every few seconds; rows of dead clients go stale.
CREATE TABLE IF NOT EXISTS dlock_locks_waiters (
  name      VARCHAR(255) NOT NULL,
  owner     VARCHAR(255) NOT NULL,
  inbox     VARCHAR(64)  NOT NULL,
  queued_at TIMESTAMPTZ  NOT NULL,
  seen_at   TIMESTAMPTZ  NOT NULL,
  PRIMARY KEY (name, owner)
);

CREATE INDEX IF NOT EXISTS dlock_locks_waiters_inbox ON dlock_locks_waiters (inbox);

-- dlock_locks_holders: the holders of the fair, read-write and semaphore locks, one row each, and
-- one anchor row per lock (owner '#F', '#G' or '#P', expires_at NULL) holding its last token and
-- permit count. Every grant, release and cancel of such a lock locks its anchor row first. A
-- released or expired holder's row is deleted; the anchor row stays, as a lock row does.
-- Renewals update expires_at alone, so the fillfactor keeps them HOT, as in dlock_locks.
CREATE TABLE IF NOT EXISTS dlock_locks_holders (
  name       VARCHAR(255) NOT NULL,
  owner      VARCHAR(255) NOT NULL,
  kind       VARCHAR(8) NOT NULL,
  token      BIGINT       NOT NULL,
  permits    BIGINT       NOT NULL,
  expires_at TIMESTAMPTZ,
  PRIMARY KEY (name, owner)
) WITH (fillfactor = 70);
