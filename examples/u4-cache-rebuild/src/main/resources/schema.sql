-- The approvals: the source the cache is built from.
CREATE TABLE IF NOT EXISTS gear_approval (
  gear_id     VARCHAR(64) NOT NULL,
  approval_id VARCHAR(64) NOT NULL
);

-- The cache: one entry per gear.
CREATE TABLE IF NOT EXISTS gear_cache (
  gear_id   VARCHAR(64) PRIMARY KEY,
  approvals BIGINT      NOT NULL, -- the approvals the entry was built from
  rebuilds  BIGINT      NOT NULL, -- how many rebuilds wrote it
  token     BIGINT      NOT NULL  -- the grant of the gear's lock that wrote it last
);
