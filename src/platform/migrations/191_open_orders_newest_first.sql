-- A user's resting orders newest first (GET /api/limit-orders, keyset by id): the first rows of this index, instead
-- of every resting order of the user sorted on each request (a market maker quoting thousands of options has tens
-- of thousands at once). orders_open_user_idx stays for the lookups by user and option (cancel-all of a market).
CREATE INDEX orders_open_user_newest_idx ON orders (user_id, id DESC) WHERE status IN ('open', 'partially_filled');
