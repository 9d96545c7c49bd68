-- Word forms (db/search.ts): beside the language-neutral document (search_doc, 'simple': names, codes and every
-- language as written), a stemmed one, so "invoices" finds "invoice" and "harbourmasters" finds "harbourmaster" as
-- people expect of a search box. English (Snowball) stems, accents folded first as in wops_search; its matches rank
-- below exact ones (a tier of their own in db/search.ts).
CREATE TEXT SEARCH CONFIGURATION wops_search_stem (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION wops_search_stem
  ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH public.unaccent, pg_catalog.english_stem;

CREATE FUNCTION wops_search_stem(a text, b text, c text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT setweight(to_tsvector('public.wops_search_stem'::regconfig, coalesce(a, '')), 'A')
            || setweight(to_tsvector('public.wops_search_stem'::regconfig, coalesce(b, '')), 'B')
            || setweight(to_tsvector('public.wops_search_stem'::regconfig, coalesce(c, '')), 'C') $$;

-- Every searchable table so far gets its stemmed document from the same columns as its search_doc (a one-time
-- rewrite of each table), with its GIN index keyed by org first.
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.table_name, c.generation_expression FROM information_schema.columns c
            WHERE c.table_schema = current_schema() AND c.column_name = 'search_doc' ORDER BY c.table_name LOOP
    EXECUTE format('ALTER TABLE %I ADD COLUMN search_stem tsvector GENERATED ALWAYS AS (%s) STORED',
      r.table_name, replace(r.generation_expression, 'wops_search_doc(', 'wops_search_stem('));
    EXECUTE format('CREATE INDEX %I ON %I USING gin (org_id, search_stem)', r.table_name || '_search_stem', r.table_name);
  END LOOP;
END $$;

-- And a table made searchable from now on gets all three columns.
CREATE OR REPLACE FUNCTION wops_search_indexes(tbl text, a text[], b text[], c text[], fuzzy text[]) RETURNS void
  LANGUAGE plpgsql
  AS $$
BEGIN
  EXECUTE format('ALTER TABLE %I ADD COLUMN search_doc tsvector GENERATED ALWAYS AS (wops_search_doc(%s, %s, %s)) STORED',
    tbl, wops_search_concat(a), wops_search_concat(b), wops_search_concat(c));
  EXECUTE format('CREATE INDEX %I ON %I USING gin (org_id, search_doc)', tbl || '_search_doc', tbl);
  EXECUTE format('ALTER TABLE %I ADD COLUMN search_stem tsvector GENERATED ALWAYS AS (wops_search_stem(%s, %s, %s)) STORED',
    tbl, wops_search_concat(a), wops_search_concat(b), wops_search_concat(c));
  EXECUTE format('CREATE INDEX %I ON %I USING gin (org_id, search_stem)', tbl || '_search_stem', tbl);
  EXECUTE format('ALTER TABLE %I ADD COLUMN search_fuzzy text GENERATED ALWAYS AS (wops_unaccent(%s)) STORED',
    tbl, wops_search_concat(fuzzy));
  EXECUTE format('CREATE INDEX %I ON %I USING gin (org_id, search_fuzzy gin_trgm_ops)', tbl || '_search_fuzzy', tbl);
END $$;
