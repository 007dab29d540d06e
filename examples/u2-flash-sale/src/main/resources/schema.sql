CREATE TABLE IF NOT EXISTS stock (
  sku      VARCHAR(64) PRIMARY KEY,
  quantity INT         NOT NULL CHECK (quantity >= 0),
  fence    BIGINT      NOT NULL DEFAULT 0 -- the largest fencing token that wrote this row
);

-- One row per item sold. No unique key: an oversold item would show as one row too many.
CREATE TABLE IF NOT EXISTS sale (
  sku   VARCHAR(64) NOT NULL,
  buyer VARCHAR(64) NOT NULL,
  token BIGINT      NOT NULL
);
