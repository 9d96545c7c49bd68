-- tables: people: teams
-- tables: people: member_teams
-- People, first slice: a member is the org record of one principal, so the principals row IS the member row.
-- New columns carry defaults (status active, version 1): every path that inserts a principal (org create, key
-- mint, pairing approve, bootstrap, the demo) writes a complete member in the same statement, and existing
-- principals are backfilled as active members by the ALTER itself.
ALTER TABLE principals
  ADD COLUMN handle text,
  ADD COLUMN email text,
  ADD COLUMN title text,
  ADD COLUMN manager_id text,
  ADD COLUMN timezone text,
  ADD COLUMN status text NOT NULL DEFAULT 'active'
    CHECK (status IN ('invited', 'active', 'suspended', 'deactivated', 'archived')),
  ADD COLUMN version integer NOT NULL DEFAULT 1,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
  ADD CONSTRAINT principals_manager_fk FOREIGN KEY (org_id, manager_id) REFERENCES principals (org_id, principal_id);

CREATE UNIQUE INDEX principals_handle ON principals (org_id, lower(handle)) WHERE handle IS NOT NULL;
CREATE UNIQUE INDEX principals_email ON principals (org_id, lower(email)) WHERE email IS NOT NULL;
CREATE INDEX principals_manager ON principals (org_id, manager_id) WHERE manager_id IS NOT NULL;

CREATE TABLE teams (
  org_id text NOT NULL REFERENCES orgs(org_id),
  team_id text NOT NULL,
  name text NOT NULL,
  handle text NOT NULL,
  parent_team_id text,
  lead_id text,
  status text NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'deleted')),
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, team_id),
  FOREIGN KEY (org_id, parent_team_id) REFERENCES teams (org_id, team_id),
  FOREIGN KEY (org_id, lead_id) REFERENCES principals (org_id, principal_id)
);
-- Deleted teams stay as tombstones; names and handles are unique among live ones.
CREATE UNIQUE INDEX teams_live_name ON teams (org_id, lower(name)) WHERE status = 'live';
CREATE UNIQUE INDEX teams_live_handle ON teams (org_id, lower(handle)) WHERE status = 'live';
CREATE INDEX teams_parent ON teams (org_id, parent_team_id) WHERE parent_team_id IS NOT NULL;

CREATE TABLE member_teams (
  org_id text NOT NULL,
  member_id text NOT NULL,
  team_id text NOT NULL,
  is_primary boolean NOT NULL DEFAULT false,
  PRIMARY KEY (org_id, member_id, team_id),
  FOREIGN KEY (org_id, member_id) REFERENCES principals (org_id, principal_id),
  FOREIGN KEY (org_id, team_id) REFERENCES teams (org_id, team_id)
);
CREATE INDEX member_teams_team ON member_teams (org_id, team_id);

-- The member directory: name and handle first, then title; typos and prefixes on name and handle.
SELECT wops_search_indexes('principals', ARRAY['name', 'handle'], ARRAY['title'], ARRAY[]::text[], ARRAY['name', 'handle']);
