-- The dlock lease-lock tables (scheme S1) for H2 2.x.
-- dlock creates them when absent; run this yourself when the application may not create tables,
-- replacing dlock_locks everywhere if you configured another table name.
--
-- dlock_locks: one row per lock name. A released lock keeps its row (owner and expiry cleared).
-- A fencing token is the larger of the row's last token + 16 (the 15 between are left spare for
-- hand-offs within the holder's client, which send nothing) and the database clock in
-- microseconds, so tokens keep growing even if rows are lost. Expiry is decided with the
-- database clock, CURRENT_TIMESTAMP, a TIMESTAMP WITH TIME ZONE.
CREATE TABLE IF NOT EXISTS dlock_locks (
  name        VARCHAR(255) NOT NULL PRIMARY KEY,
  owner       VARCHAR(255),
  token       BIGINT       NOT NULL,
  expires_at  TIMESTAMP(6) WITH TIME ZONE,
  acquired_at TIMESTAMP(6) WITH TIME ZONE
);

-- dlock_locks_waiters: the clients waiting for a lock, oldest first. A release deletes the oldest
-- live row of its name; the waiting client's inbox poller sees its row gone and wakes its waiter,
-- so one waiter wakes per release. Waiting clients refresh seen_at every few seconds; rows of dead
-- clients go stale.
CREATE TABLE IF NOT EXISTS dlock_locks_waiters (
  name      VARCHAR(255) NOT NULL,
  owner     VARCHAR(255) NOT NULL,
  inbox     VARCHAR(64)  NOT NULL,
  queued_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  seen_at   TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  PRIMARY KEY (name, owner)
);

CREATE INDEX IF NOT EXISTS dlock_locks_waiters_inbox ON dlock_locks_waiters (inbox);

-- dlock_locks_holders: the holders of the fair, read-write and semaphore locks, one row each, and
-- one anchor row per lock (owner '#F', '#G' or '#P', expires_at NULL) holding its last token and
-- permit count. Every grant, release and cancel of such a lock locks its anchor row first. A
-- released or expired holder's row is deleted; the anchor row stays, as a lock row does.
CREATE TABLE IF NOT EXISTS dlock_locks_holders (
  name       VARCHAR(255) NOT NULL,
  owner      VARCHAR(255) NOT NULL,
  kind       VARCHAR(8) NOT NULL,
  token      BIGINT       NOT NULL,
  permits    BIGINT       NOT NULL,
  expires_at TIMESTAMP(6) WITH TIME ZONE,
  PRIMARY KEY (name, owner)
);
