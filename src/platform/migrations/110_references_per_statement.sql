-- The references of the rows every order writes, checked once per statement instead of once per row.
--
-- A declared foreign key checks each inserted row on its own: one query and one row lock per row and key, about 14
-- per order on these tables, and under load most of PostgreSQL's time in the trading transaction. That
-- transaction writes a batch's orders, fills, trades, positions, journal entries, postings and feed items in a few
-- statements whose rows point at few distinct rows (one option, the users who traded, a handful of accounts). The
-- same rule is kept here once per statement, for every writer, by the database:
--
--   * every row a statement inserts points at a row that exists (or holds NULL): checked after the statement, once
--     for each distinct row pointed at, which is locked FOR KEY SHARE until the transaction ends, as a foreign key
--     locks it (no transaction can delete it, or change its id, before this one ends);
--   * the pointing column is fixed once written (nothing changes it; a foreign key would check the new value);
--   * a row pointed at cannot be deleted, nor its id changed, nor its table truncated while rows point at it.
--
-- A violation raises SQLSTATE 23503 (foreign_key_violation) with the name of the key it replaces. The references
-- are listed in `statement_references`, which `npm run audit` reads to check again that none points nowhere.

CREATE TABLE statement_references (
  name text PRIMARY KEY,
  table_name text NOT NULL,
  column_name text NOT NULL,
  referenced_table text NOT NULL
);

INSERT INTO statement_references (name, table_name, column_name, referenced_table) VALUES
  ('orders_user_id_fkey', 'orders', 'user_id', 'users'),
  ('orders_option_id_fkey', 'orders', 'option_id', 'options'),
  ('orders_replaces_order_id_fkey', 'orders', 'replaces_order_id', 'orders'),
  ('fills_option_id_fkey', 'fills', 'option_id', 'options'),
  ('fills_taker_order_id_fkey', 'fills', 'taker_order_id', 'orders'),
  ('fills_maker_order_id_fkey', 'fills', 'maker_order_id', 'orders'),
  ('trades_fill_id_fkey', 'trades', 'fill_id', 'fills'),
  ('trades_order_id_fkey', 'trades', 'order_id', 'orders'),
  ('trades_user_id_fkey', 'trades', 'user_id', 'users'),
  ('trades_option_id_fkey', 'trades', 'option_id', 'options'),
  ('trades_event_id_fkey', 'trades', 'event_id', 'events'),
  ('positions_user_id_fkey', 'positions', 'user_id', 'users'),
  ('positions_option_id_fkey', 'positions', 'option_id', 'options'),
  ('journal_entries_user_id_fkey', 'journal_entries', 'user_id', 'users'),
  ('postings_entry_id_fkey', 'postings', 'entry_id', 'journal_entries'),
  ('postings_account_id_fkey', 'postings', 'account_id', 'ledger_accounts'),
  ('notifications_user_id_fkey', 'notifications', 'user_id', 'users');

-- Builds, from the list above, one function per table that points (its checks are plain SQL, so each session plans
-- them once) and one per table pointed at, and their triggers, in place of the declared keys.
DO $migration$
DECLARE
  t text;
  body text;
  r record;
BEGIN
  FOR r IN SELECT * FROM statement_references LOOP
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', r.table_name, r.name);
  END LOOP;

  FOR t IN SELECT DISTINCT table_name FROM statement_references ORDER BY 1 LOOP
    body := '';
    FOR r IN SELECT * FROM statement_references WHERE table_name = t ORDER BY name LOOP
      body := body || format($check$
  SELECT w.id INTO missing
  FROM (SELECT DISTINCT %2$I AS id FROM inserted WHERE %2$I IS NOT NULL) w
  WHERE (SELECT p.id FROM %3$I p WHERE p.id = w.id FOR KEY SHARE OF p) IS NULL
  LIMIT 1;
  IF FOUND THEN
    RAISE foreign_key_violation USING
      MESSAGE = 'insert or update on table "%4$s" violates foreign key constraint "%1$s"',
      DETAIL = format('Key (%2$s)=(%%s) is not present in table "%3$s".', missing),
      CONSTRAINT = '%1$s', TABLE = '%4$s', COLUMN = '%2$s';
  END IF;$check$, r.name, r.column_name, r.referenced_table, t);
    END LOOP;
    EXECUTE format($fn$
CREATE FUNCTION %1$I() RETURNS trigger LANGUAGE plpgsql AS $body$
DECLARE
  missing bigint;
BEGIN%2$s
  RETURN NULL;
END $body$;
CREATE TRIGGER references_checked AFTER INSERT ON %3$I REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION %1$I();$fn$, t || '_references_checked', body, t);

    EXECUTE format($fn$
CREATE FUNCTION %1$I() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  RAISE foreign_key_violation USING
    MESSAGE = format('%3$s.%%s points at another row and is fixed once written', TG_ARGV[0]),
    TABLE = '%3$s';
END $body$;$fn$, t || '_references_fixed', NULL, t);
    FOR r IN SELECT * FROM statement_references WHERE table_name = t LOOP
      EXECUTE format(
        'CREATE TRIGGER %1$I BEFORE UPDATE OF %2$I ON %3$I FOR EACH ROW WHEN (OLD.%2$I IS DISTINCT FROM NEW.%2$I) '
        'EXECUTE FUNCTION %4$I(%5$L)',
        r.name || '_fixed', r.column_name, t, t || '_references_fixed', r.column_name);
    END LOOP;
  END LOOP;

  FOR t IN SELECT DISTINCT referenced_table FROM statement_references ORDER BY 1 LOOP
    body := '';
    FOR r IN SELECT * FROM statement_references WHERE referenced_table = t ORDER BY name LOOP
      body := body || format($check$
  IF TG_OP = 'TRUNCATE' THEN
    IF EXISTS (SELECT FROM %2$I) THEN
      RAISE foreign_key_violation USING
        MESSAGE = 'cannot truncate table "%3$s": table "%2$s" points at it (foreign key constraint "%1$s")';
    END IF;
  ELSIF EXISTS (SELECT FROM %2$I c WHERE c.%4$I = OLD.id) THEN
    RAISE foreign_key_violation USING
      MESSAGE = 'update or delete on table "%3$s" violates foreign key constraint "%1$s" on table "%2$s"',
      DETAIL = format('Key (id)=(%%s) is still referenced from table "%2$s".', OLD.id),
      CONSTRAINT = '%1$s', TABLE = '%2$s';
  END IF;$check$, r.name, r.table_name, t, r.column_name);
    END LOOP;
    EXECUTE format($fn$
CREATE FUNCTION %1$I() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.id IS NOT DISTINCT FROM OLD.id THEN
    RETURN NEW;
  END IF;%2$s
  RETURN CASE TG_OP WHEN 'UPDATE' THEN NEW ELSE OLD END;
END $body$;
CREATE TRIGGER referenced_rows_kept BEFORE DELETE OR UPDATE OF id ON %3$I
  FOR EACH ROW EXECUTE FUNCTION %1$I();
CREATE TRIGGER referenced_rows_kept_on_truncate BEFORE TRUNCATE ON %3$I
  FOR EACH STATEMENT EXECUTE FUNCTION %1$I();$fn$, t || '_referenced_rows_kept', body, t);
  END LOOP;
END
$migration$;
