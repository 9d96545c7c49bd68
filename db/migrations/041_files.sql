-- tables: files: files, file_grants, file_stars, file_versions, file_exports
-- Files (files.md): the org's drive. Every file belongs to the org (nothing is orphaned when people leave); access
-- is a role (viewer < commenter < editor < manager) computed over the grants on the file's access path, which this
-- table keeps: the file's ancestors from the top of its inheritance down to itself. A restricted folder starts a
-- new path (it stops inheritance), so a grant on a folder reaches its subtree without rewriting a child, and a
-- move rewrites the subtree's paths in one UPDATE. Names, bodies and emails live only in these rows.

CREATE TABLE files (
  org_id text NOT NULL REFERENCES orgs(org_id),
  file_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('folder', 'doc', 'sheet', 'deck', 'upload')),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  -- NULL: at the org's root.
  parent_id text,
  -- Folders only: stops inheritance (only grants on it and below count).
  restricted boolean NOT NULL DEFAULT false,
  -- The file's ancestors from the top of its inheritance (the root-level ancestor, or the nearest restricted
  -- folder) down to the file itself; access_path[1] tells whether the whole org inherits (see open_to_org).
  access_path text[] NOT NULL,
  -- No restricted folder on the path (the file included): the org's root grant {org, editor} reaches it.
  open_to_org boolean NOT NULL,
  -- Agents' edits of a doc in review mode become suggestions a human accepts.
  review_mode boolean NOT NULL DEFAULT false,
  -- Content version: a doc's, sheet's or deck's head revision, an upload's version (0 for a folder).
  revision integer NOT NULL DEFAULT 0,
  size_bytes bigint NOT NULL DEFAULT 0,
  -- An upload's bytes (a blob of this org, held through blob_refs); a native file's head content hash.
  sha256 text,
  content_type text,
  -- Extracted text of an upload, searched with the name (bounded by the extractor).
  body_text text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'trashed', 'purged')),
  -- The file whose delete trashed this one (itself, or the folder above): recover of that file brings it back.
  trashed_root text,
  trashed_at timestamptz,
  trashed_by text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, file_id),
  FOREIGN KEY (org_id, parent_id) REFERENCES files (org_id, file_id),
  CHECK (kind = 'folder' OR NOT restricted),
  CHECK (access_path[cardinality(access_path)] = file_id),
  CHECK ((status = 'trashed') = (trashed_at IS NOT NULL))
);
-- A folder's page: folders first, then by name (files.list keyset order); and any walk down by parent.
CREATE INDEX files_children ON files (org_id, parent_id, ((kind <> 'folder')::int), name, file_id) WHERE status = 'active';
CREATE INDEX files_parent ON files (org_id, parent_id);
CREATE INDEX files_recent ON files (org_id, updated_at DESC, file_id) WHERE status = 'active';
CREATE INDEX files_trash ON files (org_id, trashed_at DESC, file_id) WHERE status = 'trashed';
-- The subtree of a folder: every file whose path passes through it.
CREATE INDEX files_access_path ON files USING gin (org_id, access_path);
-- Names first, then an upload's text; typos on names.
SELECT wops_search_indexes('files', ARRAY['name'], ARRAY[]::text[], ARRAY['body_text'], ARRAY['name']);

-- Who may do what with a file and its subtree. A grantee is a member (usr_/agt_), a team (team_), the org, or an
-- outside email (a viewer-only capability with a hashed token, expiring: files.md section 3).
CREATE TABLE file_grants (
  org_id text NOT NULL REFERENCES orgs(org_id),
  grant_id text NOT NULL,
  file_id text NOT NULL,
  grantee_kind text NOT NULL CHECK (grantee_kind IN ('principal', 'team', 'org', 'email')),
  -- The member or team id; the lower-cased email; '' for the org.
  grantee text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'commenter', 'editor', 'manager')),
  expires_at timestamptz,
  -- Email grants: SHA-256 of the guest link's token (the token itself is shown once).
  token_hash text,
  views integer NOT NULL DEFAULT 0,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoked_by text,
  PRIMARY KEY (org_id, grant_id),
  FOREIGN KEY (org_id, file_id) REFERENCES files (org_id, file_id),
  CHECK ((grantee_kind = 'email') = (token_hash IS NOT NULL)),
  CHECK (grantee_kind <> 'email' OR role = 'viewer')
);
-- One live grant per file and grantee: granting again changes its role.
CREATE UNIQUE INDEX file_grants_live ON file_grants (org_id, file_id, grantee_kind, grantee) WHERE revoked_at IS NULL;
-- A role check reads the live grants on a path for the caller, its teams and the org.
CREATE INDEX file_grants_by_grantee ON file_grants (org_id, grantee_kind, grantee, file_id) WHERE revoked_at IS NULL;
-- GET /share/<token>: the token names its org (as /join's does), and its hash finds the grant within it.
CREATE UNIQUE INDEX file_grants_token ON file_grants (org_id, token_hash) WHERE token_hash IS NOT NULL;

-- Stars are per member (files.star).
CREATE TABLE file_stars (
  org_id text NOT NULL REFERENCES orgs(org_id),
  principal_id text NOT NULL,
  file_id text NOT NULL,
  starred_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, principal_id, file_id),
  FOREIGN KEY (org_id, file_id) REFERENCES files (org_id, file_id)
);

-- An upload's versions: each holds its blob (holder fil_…#v<n>) until the file is purged.
CREATE TABLE file_versions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  file_id text NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  sha256 text NOT NULL,
  size_bytes bigint NOT NULL,
  content_type text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, file_id, version),
  FOREIGN KEY (org_id, file_id) REFERENCES files (org_id, file_id)
);

-- Every download is an export (files.exportRequest, the only egress): what left, as which bytes. A native
-- file's rendering is a blob held by the export (holder exp_…); an upload's original is the file's own blob.
CREATE TABLE file_exports (
  org_id text NOT NULL REFERENCES orgs(org_id),
  export_id text NOT NULL,
  file_id text NOT NULL,
  format text NOT NULL,
  revision integer NOT NULL,
  sha256 text NOT NULL,
  size_bytes bigint NOT NULL,
  content_type text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, export_id),
  FOREIGN KEY (org_id, file_id) REFERENCES files (org_id, file_id)
);
CREATE INDEX file_exports_by_file ON file_exports (org_id, file_id, created_at DESC);
-- What a recover brings back: every file a delete trashed with it.
CREATE INDEX files_trashed_root ON files (org_id, trashed_root) WHERE status = 'trashed';
