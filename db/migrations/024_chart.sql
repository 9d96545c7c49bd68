-- tables: people: org_charts
-- The org chart (people.md: hierarchy, positions). Every reporting change (a manager, a dotted line, a sibling
-- position, a member leaving the chart) bumps the org's chart revision under the people lock, so a reorg can say
-- which chart it was computed from (hierarchy.set expectedRevision) and a flat page knows the chart moved.
CREATE TABLE org_charts (
  org_id text NOT NULL REFERENCES orgs(org_id),
  revision bigint NOT NULL DEFAULT 0 CHECK (revision >= 0),
  PRIMARY KEY (org_id)
);

-- Principals created before every path derived a handle get one now: the name folded to lowercase words joined
-- by dots (domain/member/model.ts handleFrom), then the first free of base, base2, base3… in the org.
DO $$
DECLARE
  r record;
  base text;
  candidate text;
  n integer;
BEGIN
  FOR r IN SELECT org_id, principal_id, name FROM principals WHERE handle IS NULL ORDER BY org_id, created_at, principal_id LOOP
    base := trim(both '.' from regexp_replace(lower(wops_unaccent(r.name)), '[^a-z0-9]+', '.', 'g'));
    base := rtrim(left(base, 32), '.');
    IF base = '' THEN base := 'member'; END IF;
    candidate := base;
    n := 1;
    WHILE EXISTS (SELECT 1 FROM principals WHERE org_id = r.org_id AND lower(handle) = candidate) LOOP
      n := n + 1;
      candidate := base || n;
    END LOOP;
    UPDATE principals SET handle = candidate WHERE org_id = r.org_id AND principal_id = r.principal_id;
  END LOOP;
END $$;
