-- Recent-first search over large, time-ordered tables (chat, mail; db/search.ts `recent.day`): each row's day beside
-- its words in the doc and stem GIN indexes, so "the matches of the last N days" is one index scan that intersects
-- the word's rows with the days' rows, instead of walking the newest rows (reading each one's words) or fetching
-- every match of a common word. Measured on PostgreSQL at 200k mail messages: a 7%-of-rows word's newest matches
-- in 250 ms by the old indexes, 15 ms by these. Adding the column rewrites each table once.
CREATE FUNCTION wops_search_day(at timestamptz) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT floor(extract(epoch FROM at) / 86400)::integer $$;

CREATE FUNCTION wops_search_recent(tbl text, col text) RETURNS void
  LANGUAGE plpgsql
  AS $$
BEGIN
  EXECUTE format('ALTER TABLE %I ADD COLUMN search_day integer GENERATED ALWAYS AS (wops_search_day(%I)) STORED', tbl, col);
  EXECUTE format('DROP INDEX %I', tbl || '_search_doc');
  EXECUTE format('CREATE INDEX %I ON %I USING gin (org_id, search_doc, search_day)', tbl || '_search_doc', tbl);
  EXECUTE format('DROP INDEX %I', tbl || '_search_stem');
  EXECUTE format('CREATE INDEX %I ON %I USING gin (org_id, search_stem, search_day)', tbl || '_search_stem', tbl);
END $$;

SELECT wops_search_recent('email_messages', 'sort_at');
SELECT wops_search_recent('messages', 'posted_at');
