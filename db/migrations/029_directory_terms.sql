-- The directory's search also covers a member's team names and expertise tags (people.md 3, GET /directory q).
-- They live in teams (through member_teams) and profiles.expertise; a generated column cannot read other tables,
-- so principals keeps a copy, directory_terms, rewritten in the writer's transaction (domain/member/terms.ts).
ALTER TABLE principals ADD COLUMN directory_terms text;

-- What directory_terms holds for each of `members`: its live teams' names (primary first) then its expertise
-- tags, space-separated; NULL when it has neither. The one definition: the backfill below and the member family's
-- refresh (domain/member/terms.ts) both read it. Set-returning (index lookups per member, no per-row function
-- call): the 5,000 members of a renamed team are computed in about 0.1 s. Tables unqualified, read under the
-- caller's search_path (no generated column or index uses this function).
CREATE FUNCTION member_directory_terms(org text, members text[]) RETURNS TABLE (member_id text, terms text)
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT m.id, nullif(concat_ws(' ',
           (SELECT string_agg(t.name, ' ' ORDER BY mt.is_primary DESC, lower(t.name), t.team_id)
              FROM member_teams mt JOIN teams t ON t.org_id = mt.org_id AND t.team_id = mt.team_id
             WHERE mt.org_id = org AND mt.member_id = m.id AND t.status = 'live'),
           (SELECT array_to_string(pr.expertise, ' ') FROM profiles pr WHERE pr.org_id = org AND pr.member_id = m.id)), '')
          FROM (SELECT DISTINCT unnest(members)) AS m(id) $$;

-- Redo the directory's search columns (made by 022) with the terms as the C weight. Fuzzy matching stays on
-- name and handle: trigrams over tags and team names let a short query ("dan") match every member of a "Data"
-- team (word_similarity 0.5), so those match by whole words only (domain/member/search.ts).
ALTER TABLE principals DROP COLUMN search_doc, DROP COLUMN search_fuzzy;

-- Backfill (members with a team or a profile; the rest stay NULL) between dropping the search columns and making
-- them again: no GIN entries are written row by row, and the indexes are then built once over the final values.
UPDATE principals p SET directory_terms = d.terms
  FROM (SELECT org_id, array_agg(DISTINCT member_id) AS ids
          FROM (SELECT org_id, member_id FROM member_teams UNION ALL SELECT org_id, member_id FROM profiles) x
         GROUP BY org_id) o,
       LATERAL member_directory_terms(o.org_id, o.ids) d
 WHERE p.org_id = o.org_id AND p.principal_id = d.member_id;

SELECT wops_search_indexes('principals', ARRAY['name', 'handle'], ARRAY['title'], ARRAY['directory_terms'], ARRAY['name', 'handle']);
