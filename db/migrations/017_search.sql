-- Search (db/search.ts): full text and trigram matching, the same on PostgreSQL and PGlite (which loads these
-- extensions from its contrib bundle, db/pglite.ts). All three are trusted: a database owner may create them.
-- Functions and the configuration name the public schema, so the generated columns also compute under an
-- empty search_path (pg_restore).
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public;
-- GIN over the plain org_id column too, so a search index keys by org first (as every index does, WORKSPACE 5b)
-- and one index scan finds the org's matches: 3-5 ms instead of 18-22 ms over a 10,000-item org.
CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA public;

-- unaccent() is STABLE (its dictionary could change); index expressions need IMMUTABLE. The rules file ships
-- with the server, so treating it as fixed is the documented practice.
CREATE FUNCTION wops_unaccent(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;

-- 'simple' (no stemming, no stop words: names, codes and every language match as written) with accents folded
-- inside the parser, so ts_headline marks "Café" for the query "cafe" in the original text.
CREATE TEXT SEARCH CONFIGURATION wops_search (COPY = pg_catalog.simple);
ALTER TEXT SEARCH CONFIGURATION wops_search
  ALTER MAPPING FOR word, hword, hword_part, numword, numhword WITH public.unaccent, pg_catalog.simple;

-- The weighted document of a row: A, B and C texts (NULL for a weight a family does not use).
CREATE FUNCTION wops_search_doc(a text, b text, c text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT setweight(to_tsvector('public.wops_search'::regconfig, coalesce(a, '')), 'A')
            || setweight(to_tsvector('public.wops_search'::regconfig, coalesce(b, '')), 'B')
            || setweight(to_tsvector('public.wops_search'::regconfig, coalesce(c, '')), 'C') $$;

-- One weight's columns joined into one text (db/search.ts writes the same, to check a declaration against it).
CREATE FUNCTION wops_search_concat(cols text[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN cardinality(cols) = 0 THEN 'NULL'
                    ELSE (SELECT string_agg(format('coalesce(%I, '''')', c), ' || '' '' || ' ORDER BY i)
                            FROM unnest(cols) WITH ORDINALITY AS u(c, i)) END $$;

-- What a searchable table needs, for a family's migration:
--   SELECT wops_search_indexes('board_tasks', ARRAY['title'], ARRAY['description'], ARRAY[]::text[], ARRAY['title']);
-- (weights A, B, C, then the fuzzy columns). The same declaration goes to defineSearch in the family's code.
-- It adds two stored generated columns, search_doc (the weighted document) and search_fuzzy (the accent-folded
-- fuzzy text), each with its GIN index: ranking and the indexes' rechecks read every candidate's value, and
-- recomputing it per row (plain expression indexes) was 2-5x slower (README, Search).
CREATE FUNCTION wops_search_indexes(tbl text, a text[], b text[], c text[], fuzzy text[]) RETURNS void
  LANGUAGE plpgsql
  AS $$
BEGIN
  EXECUTE format('ALTER TABLE %I ADD COLUMN search_doc tsvector GENERATED ALWAYS AS (wops_search_doc(%s, %s, %s)) STORED',
    tbl, wops_search_concat(a), wops_search_concat(b), wops_search_concat(c));
  EXECUTE format('CREATE INDEX %I ON %I USING gin (org_id, search_doc)', tbl || '_search_doc', tbl);
  EXECUTE format('ALTER TABLE %I ADD COLUMN search_fuzzy text GENERATED ALWAYS AS (wops_unaccent(%s)) STORED',
    tbl, wops_search_concat(fuzzy));
  EXECUTE format('CREATE INDEX %I ON %I USING gin (org_id, search_fuzzy gin_trgm_ops)', tbl || '_search_fuzzy', tbl);
END $$;

-- Board items: title first, then description; typos and prefixes on the title.
SELECT wops_search_indexes('board_tasks', ARRAY['title'], ARRAY['description'], ARRAY[]::text[], ARRAY['title']);
