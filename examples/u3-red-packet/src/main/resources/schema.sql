-- No unique key on user_id here, so the test shows what the lock alone does. In production keep
-- one as well: the lock stops duplicates early and cheaply, the key is the last word.
CREATE TABLE IF NOT EXISTS payment (
  user_id      BIGINT      NOT NULL,
  amount_cents BIGINT      NOT NULL,
  token        BIGINT      NOT NULL, -- the grant of the user's lock that paid
  paid_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
