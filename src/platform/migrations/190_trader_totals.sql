-- The leaderboard's figures per trader, kept by the database as trades, positions and settlements are written,
-- so that the boards read the top rows of an index instead of summing every trade and position ever made (seconds
-- once a year of trading is in). Each writer's statement adds what it changed, per trader, in user order.
CREATE TABLE trader_totals (
  user_id bigint PRIMARY KEY,
  -- Notional traded: quantity × price of every execution.
  volume_cents bigint NOT NULL DEFAULT 0,
  -- Realized profit over all positions, and how many positions have a realized result (a loss included).
  realized_pnl_cents bigint NOT NULL DEFAULT 0,
  positions_with_result bigint NOT NULL DEFAULT 0,
  -- Settled positions on the winning side.
  winning_predictions bigint NOT NULL DEFAULT 0
);

INSERT INTO trader_totals (user_id, volume_cents, realized_pnl_cents, positions_with_result, winning_predictions)
SELECT user_id, sum(volume), sum(pnl), sum(results), sum(wins) FROM (
  SELECT user_id, sum(quantity * price_cents) AS volume, 0 AS pnl, 0 AS results, 0 AS wins
  FROM trades GROUP BY user_id
  UNION ALL
  SELECT user_id, 0, sum(realized_pnl_cents), count(*) FILTER (WHERE realized_pnl_cents <> 0), 0
  FROM positions GROUP BY user_id
  UNION ALL
  SELECT user_id, 0, 0, 0, count(*) FROM position_settlements WHERE outcome = side AND quantity > 0 GROUP BY user_id
) t GROUP BY user_id;

CREATE INDEX trader_totals_volume_idx ON trader_totals (volume_cents DESC, user_id) WHERE volume_cents > 0;
CREATE INDEX trader_totals_profit_idx ON trader_totals (realized_pnl_cents DESC, user_id)
  WHERE positions_with_result > 0;
CREATE INDEX trader_totals_predictions_idx ON trader_totals (winning_predictions DESC, user_id)
  WHERE winning_predictions > 0;

CREATE FUNCTION trader_totals_of_trades() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO trader_totals AS t (user_id, volume_cents)
  SELECT user_id, sum(quantity * price_cents) FROM inserted GROUP BY user_id ORDER BY user_id
  ON CONFLICT (user_id) DO UPDATE SET volume_cents = t.volume_cents + excluded.volume_cents;
  RETURN NULL;
END
$$;

CREATE TRIGGER trader_totals_kept AFTER INSERT ON trades
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION trader_totals_of_trades();

-- A position's realized result, as each statement changed it: what it is now less what it was.
CREATE FUNCTION trader_totals_of_positions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO trader_totals AS t (user_id, realized_pnl_cents, positions_with_result)
    SELECT user_id, sum(realized_pnl_cents), count(*) FILTER (WHERE realized_pnl_cents <> 0)
    FROM inserted WHERE realized_pnl_cents <> 0 GROUP BY user_id ORDER BY user_id
    ON CONFLICT (user_id) DO UPDATE SET realized_pnl_cents = t.realized_pnl_cents + excluded.realized_pnl_cents,
      positions_with_result = t.positions_with_result + excluded.positions_with_result;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO trader_totals AS t (user_id, realized_pnl_cents, positions_with_result)
    SELECT n.user_id, sum(n.realized_pnl_cents - o.realized_pnl_cents),
      sum((n.realized_pnl_cents <> 0)::int - (o.realized_pnl_cents <> 0)::int)
    FROM updated n JOIN previous o ON o.id = n.id
    WHERE n.realized_pnl_cents <> o.realized_pnl_cents GROUP BY n.user_id ORDER BY n.user_id
    ON CONFLICT (user_id) DO UPDATE SET realized_pnl_cents = t.realized_pnl_cents + excluded.realized_pnl_cents,
      positions_with_result = t.positions_with_result + excluded.positions_with_result;
  ELSE
    INSERT INTO trader_totals AS t (user_id, realized_pnl_cents, positions_with_result)
    SELECT user_id, -sum(realized_pnl_cents), -count(*)
    FROM previous WHERE realized_pnl_cents <> 0 GROUP BY user_id ORDER BY user_id
    ON CONFLICT (user_id) DO UPDATE SET realized_pnl_cents = t.realized_pnl_cents + excluded.realized_pnl_cents,
      positions_with_result = t.positions_with_result + excluded.positions_with_result;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER trader_totals_kept_insert AFTER INSERT ON positions
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION trader_totals_of_positions();
CREATE TRIGGER trader_totals_kept_update AFTER UPDATE ON positions
  REFERENCING OLD TABLE AS previous NEW TABLE AS updated FOR EACH STATEMENT
  EXECUTE FUNCTION trader_totals_of_positions();
CREATE TRIGGER trader_totals_kept_delete AFTER DELETE ON positions
  REFERENCING OLD TABLE AS previous FOR EACH STATEMENT EXECUTE FUNCTION trader_totals_of_positions();

CREATE FUNCTION trader_totals_of_settlements() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO trader_totals AS t (user_id, winning_predictions)
  SELECT user_id, count(*) FROM inserted WHERE outcome = side AND quantity > 0 GROUP BY user_id ORDER BY user_id
  ON CONFLICT (user_id) DO UPDATE SET winning_predictions = t.winning_predictions + excluded.winning_predictions;
  RETURN NULL;
END
$$;

CREATE TRIGGER trader_totals_kept AFTER INSERT ON position_settlements
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION trader_totals_of_settlements();
