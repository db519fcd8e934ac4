-- Each trader's number of executions, kept with their other totals (migration 190), so that a profile, a level and
-- the badges read one row instead of counting every trade the trader ever made (a bot's hundreds of thousands).
ALTER TABLE trader_totals ADD COLUMN trades bigint NOT NULL DEFAULT 0;

UPDATE trader_totals t SET trades = c.trades
FROM (SELECT user_id, count(*) AS trades FROM trades GROUP BY user_id) c
WHERE c.user_id = t.user_id;

CREATE OR REPLACE FUNCTION trader_totals_of_trades() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO trader_totals AS t (user_id, volume_cents, trades)
  SELECT user_id, sum(quantity * price_cents), count(*) FROM inserted GROUP BY user_id ORDER BY user_id
  ON CONFLICT (user_id) DO UPDATE SET volume_cents = t.volume_cents + excluded.volume_cents,
    trades = t.trades + excluded.trades;
  RETURN NULL;
END
$$;
