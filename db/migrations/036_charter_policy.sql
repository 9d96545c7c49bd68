-- tables: governance: charters, charter_versions, charter_section_ids, charter_authority
-- tables: governance: compacts, compact_versions
-- tables: governance: policies, policy_versions
-- The charter, compacts and policies (governance.md). Free text (mission, section bodies, clauses, colleague
-- records, compact commitments, policy bodies) lives only in these rows, never in the ledger.

-- One charter per org, versioned like Git: the head document whole, and a chain of versions each naming its
-- parent's content hash. Created by the org's first charter write (version 0 is the empty charter).
CREATE TABLE charters (
  org_id text NOT NULL REFERENCES orgs(org_id),
  charter_id text NOT NULL,
  version integer NOT NULL DEFAULT 0 CHECK (version >= 0),
  -- SHA-256 of the canonical JSON of the head document (title, mission, sections, colleagues).
  content_hash text NOT NULL,
  parent_hash text,
  document jsonb NOT NULL,
  size_bytes integer NOT NULL,
  -- The delta chain since the last snapshot (charter_versions): when it grows past the document's size or 50
  -- versions, the next version is stored whole, so reading any version costs at most about two documents.
  chain_length integer NOT NULL DEFAULT 0,
  chain_bytes integer NOT NULL DEFAULT 0,
  updated_by text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id)
);

-- Every version: a snapshot (the whole document) every so often, otherwise the delta from its parent (changed
-- title or mission, sections and colleague records replaced whole or removed, the section order).
CREATE TABLE charter_versions (
  org_id text NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  content_hash text NOT NULL,
  parent_hash text,
  method text NOT NULL,
  binding boolean NOT NULL,
  decision_id text,
  approval_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  snapshot jsonb,
  delta jsonb,
  size_bytes integer NOT NULL,
  PRIMARY KEY (org_id, version),
  FOREIGN KEY (org_id) REFERENCES charters (org_id),
  CHECK ((snapshot IS NULL) <> (delta IS NULL))
);
-- Reading version v starts from the newest snapshot at or before it.
CREATE INDEX charter_versions_snapshots ON charter_versions (org_id, version) WHERE snapshot IS NOT NULL;

-- Every section id the charter ever had: a deleted one answers changed:false (or CONFLICT for an edit), an id
-- never seen NOT_FOUND.
CREATE TABLE charter_section_ids (
  org_id text NOT NULL,
  section_id text NOT NULL,
  added_version integer NOT NULL,
  deleted_version integer,
  PRIMARY KEY (org_id, section_id)
);

-- The authority of the head's colleague records, for the decision rights (role selectors, agents' autonomy).
CREATE TABLE charter_authority (
  org_id text NOT NULL,
  principal_id text NOT NULL,
  roles text[] NOT NULL DEFAULT '{}',
  autonomy text CHECK (autonomy IN ('supervised', 'standard', 'delegated')),
  reports_to text,
  PRIMARY KEY (org_id, principal_id)
);

-- Compacts: an agent's agreement with its sponsoring human (scope agt_…), or the org's for every agent (scope
-- org). Terms: commitments both ways and limits; every change of terms or sponsor is a version the agent
-- acknowledges on its own side.
CREATE TABLE compacts (
  org_id text NOT NULL REFERENCES orgs(org_id),
  compact_id text NOT NULL,
  scope text NOT NULL CHECK (scope = 'org' OR scope LIKE 'agt\_%'),
  sponsor_id text,
  commitments jsonb NOT NULL,
  limits jsonb NOT NULL,
  terms_hash text NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  acknowledged_version integer,
  acknowledged_at timestamptz,
  updated_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, compact_id),
  UNIQUE (org_id, scope),
  CHECK (acknowledged_version IS NULL OR acknowledged_version <= version)
);

CREATE TABLE compact_versions (
  org_id text NOT NULL,
  compact_id text NOT NULL,
  version integer NOT NULL,
  sponsor_id text,
  commitments jsonb NOT NULL,
  limits jsonb NOT NULL,
  terms_hash text NOT NULL,
  approval_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, compact_id, version),
  FOREIGN KEY (org_id, compact_id) REFERENCES compacts (org_id, compact_id)
);

-- Published policies by key; each publish is a version (retire included).
CREATE TABLE policies (
  org_id text NOT NULL REFERENCES orgs(org_id),
  policy_id text NOT NULL,
  key text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  status text NOT NULL CHECK (status IN ('published', 'retired')),
  effective_from date NOT NULL,
  settings jsonb,
  content_hash text NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  published_by text NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, policy_id),
  UNIQUE (org_id, key)
);

CREATE TABLE policy_versions (
  org_id text NOT NULL,
  policy_id text NOT NULL,
  version integer NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  status text NOT NULL,
  effective_from date NOT NULL,
  settings jsonb,
  content_hash text NOT NULL,
  approval_id text,
  published_by text NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, policy_id, version),
  FOREIGN KEY (org_id, policy_id) REFERENCES policies (org_id, policy_id)
);

-- Days after a promised date before an unpaid promise counts as BROKEN: a per-org setting (policy.publish sets it).
ALTER TABLE books_settings ADD COLUMN promise_grace_days integer NOT NULL DEFAULT 3 CHECK (promise_grace_days BETWEEN 0 AND 90);
