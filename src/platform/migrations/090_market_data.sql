-- Market data: OHLC candles of each option's YES price, kept up to date by the trading transaction that makes the
-- fills (one upsert per committed change), so that a read never scans the trades.
CREATE TABLE candles (
  option_id bigint NOT NULL REFERENCES options (id),
  interval text NOT NULL CHECK (interval IN ('1m', '1h', '1d')),
  -- The start of the interval, aligned to the Unix epoch in UTC (a day starts at 00:00 UTC).
  bucket timestamptz NOT NULL,
  open integer NOT NULL CHECK (open BETWEEN 1 AND 99),
  high integer NOT NULL CHECK (high BETWEEN 1 AND 99),
  low integer NOT NULL CHECK (low BETWEEN 1 AND 99),
  close integer NOT NULL CHECK (close BETWEEN 1 AND 99),
  volume_shares bigint NOT NULL CHECK (volume_shares > 0),
  -- Notional at the takers' prices, as options.volume_cents counts it.
  volume_cents bigint NOT NULL CHECK (volume_cents > 0),
  PRIMARY KEY (option_id, interval, bucket)
);

-- The candles of the fills made before this migration, by the same rules.
INSERT INTO candles (option_id, interval, bucket, open, high, low, close, volume_shares, volume_cents)
SELECT f.option_id, i.name, to_timestamp(floor(extract(epoch FROM f.created_at) / i.seconds) * i.seconds),
  (array_agg(f.yes_price ORDER BY f.id))[1], max(f.yes_price), min(f.yes_price),
  (array_agg(f.yes_price ORDER BY f.id DESC))[1], sum(f.quantity),
  sum(f.quantity * CASE WHEN o.side = 'YES' THEN f.yes_price ELSE 100 - f.yes_price END)
FROM fills f
JOIN orders o ON o.id = f.taker_order_id
CROSS JOIN (VALUES ('1m', 60), ('1h', 3600), ('1d', 86400)) AS i (name, seconds)
GROUP BY f.option_id, i.name, i.seconds, floor(extract(epoch FROM f.created_at) / i.seconds);

-- The public tape of an option, newest first, paged by fill id.
CREATE INDEX fills_option_id_idx ON fills (option_id, id DESC);
-- A trader's settlements, newest first.
CREATE INDEX position_settlements_user_id_idx ON position_settlements (user_id, id DESC);
