-- The book version at which each order row last changed: one more than its option's book_version when the row
-- was written. An instance that keeps an option's book in memory catches up on what other writers did by reading
-- only the orders with a version above the one it holds (instead of every resting order of the option).
ALTER TABLE orders ADD COLUMN book_version bigint NOT NULL DEFAULT 0;
CREATE INDEX orders_option_version_idx ON orders (option_id, book_version);

CREATE FUNCTION orders_book_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.book_version := (SELECT book_version + 1 FROM options WHERE id = NEW.option_id);
  RETURN NEW;
END
$$;

CREATE TRIGGER orders_book_version BEFORE INSERT OR UPDATE ON orders
  FOR EACH ROW EXECUTE FUNCTION orders_book_version();
