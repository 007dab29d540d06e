-- The dlock lease-lock tables (scheme S1) for MariaDB 10.6 or later and MySQL 8.0.17 or later.
-- dlock creates them when absent; run this yourself when the application may not create tables,
-- replacing dlock_locks everywhere if you configured another table name, and {collation} with
-- utf8mb4_nopad_bin on MariaDB or utf8mb4_0900_bin on MySQL (each server's binary collation
-- without trailing-space padding).
--
-- dlock_locks: one row per lock name. A released lock keeps its row (owner and expiry cleared).
-- A fencing token is the larger of the row's last token + 16 (the 15 between are left spare for
-- hand-offs within the holder's client, which send nothing) and the database clock in
-- microseconds, so tokens keep growing even if rows are lost. Times are the server's
-- UTC_TIMESTAMP(6) stored as DATETIME(6), so no client's session time zone matters. Names compare
-- byte for byte: no case folding, no trailing-space padding.
CREATE TABLE IF NOT EXISTS dlock_locks (
  name        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE {collation} NOT NULL PRIMARY KEY,
  owner       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE {collation} NULL,
  token       BIGINT      NOT NULL,
  expires_at  DATETIME(6) NULL,
  acquired_at DATETIME(6) NULL
) ENGINE = InnoDB;

-- dlock_locks_waiters: the clients waiting for a lock, oldest first. A release deletes the oldest
-- live row of its name; the waiting client's inbox poller sees its row gone and wakes its waiter,
-- so one waiter wakes per release. Waiting clients refresh seen_at every few seconds; rows of dead
-- clients go stale.
CREATE TABLE IF NOT EXISTS dlock_locks_waiters (
  name      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE {collation} NOT NULL,
  owner     VARCHAR(255) CHARACTER SET utf8mb4 COLLATE {collation} NOT NULL,
  inbox     VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  queued_at DATETIME(6) NOT NULL,
  seen_at   DATETIME(6) NOT NULL,
  PRIMARY KEY (name, owner),
  KEY dlock_locks_waiters_inbox (inbox)
) ENGINE = InnoDB;

-- dlock_locks_holders: the holders of the fair, read-write and semaphore locks, one row each, and
-- one anchor row per lock (owner '#F', '#G' or '#P', expires_at NULL) holding its last token and
-- permit count. Every grant, release and cancel of such a lock locks its anchor row first. A
-- released or expired holder's row is deleted; the anchor row stays, as a lock row does.
CREATE TABLE IF NOT EXISTS dlock_locks_holders (
  name       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE {collation} NOT NULL,
  owner      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE {collation} NOT NULL,
  kind       VARCHAR(8) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  token      BIGINT       NOT NULL,
  permits    BIGINT       NOT NULL,
  expires_at DATETIME(6) NULL,
  PRIMARY KEY (name, owner)
) ENGINE = InnoDB;
