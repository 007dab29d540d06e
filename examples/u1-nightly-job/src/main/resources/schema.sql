-- One row per report written. No unique key on tick, on purpose: a tick run twice would show.
CREATE TABLE IF NOT EXISTS nightly_report (
  tick  BIGINT      NOT NULL, -- the cron tick, in seconds since the epoch
  node  VARCHAR(64) NOT NULL, -- the node that ran it
  token BIGINT      NOT NULL  -- the lock's fencing token for that run
);
