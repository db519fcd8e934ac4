-- A user's positions with what values them, in the index that keeps each user's option and side unique: the
-- portfolio summary, the value over time and the pages of GET /api/positions read a trader's holdings from the index
-- alone (an index-only scan) instead of one heap page per position (a trader with 1,000 positions: 1,000 pages).
-- It replaces the index of the unique constraint rather than adding one, so a trade writes no more index entries
-- than before; ON CONFLICT (user_id, option_id, side) finds it as it found the constraint's.
CREATE UNIQUE INDEX positions_user_option_side_idx ON positions (user_id, option_id, side)
  INCLUDE (quantity, cost_cents, realized_pnl_cents);

ALTER TABLE positions
  DROP CONSTRAINT positions_user_id_option_id_side_key,
  ADD CONSTRAINT positions_user_option_side_key UNIQUE USING INDEX positions_user_option_side_idx;
