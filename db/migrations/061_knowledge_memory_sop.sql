-- tables: knowledge: knowledge_entries, knowledge_entry_revisions, knowledge_searches, knowledge_search_results
-- tables: memory: memory_blocks, memory_block_versions, memory_amendments
-- tables: sop: sops, sop_versions
-- Shared memory of agents and humans (docs/families/knowledge.md): sourced entries with validity, the searches that
-- served them, memory blocks agents load into their prompts and the amendments proposed to them, and versioned
-- standard operating procedures. Bodies, quotes, block values, step texts and query texts live only in these rows,
-- never in the ledger; a search's query text is erased after 30 days (the knowledge.eraseQuery job).

CREATE TABLE knowledge_entries (
  org_id text NOT NULL REFERENCES orgs(org_id),
  entry_id text NOT NULL,
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 4000),
  kind text NOT NULL CHECK (kind IN ('fact', 'decision', 'preference', 'procedure', 'note')),
  subject_ids text[] NOT NULL DEFAULT '{}',
  -- [{kind, ref, quote?}]: what the entry rests on (an agent's entry cites at least one).
  sources jsonb NOT NULL DEFAULT '[]',
  -- SHA-256 of the whitespace-folded body: an exact duplicate of an active entry is a no-op.
  body_hash text NOT NULL,
  verified boolean NOT NULL DEFAULT false,
  verified_by text,
  author_id text NOT NULL,
  -- active, or closed: invalidated (never true) or superseded (the world changed: replace). Expired is computed
  -- (valid_until passed), not stored, so no job has to move it.
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'invalidated', 'superseded')),
  -- Valid time (when it is true in the world) apart from recorded time (when we learnt it), as Zep's facts.
  valid_from timestamptz NOT NULL,
  valid_until timestamptz,
  recorded_at timestamptz NOT NULL,
  revision integer NOT NULL DEFAULT 1,
  supersedes text,
  superseded_by text,
  invalidated_reason text CHECK (invalidated_reason IN ('wrong', 'outdated', 'duplicate')),
  invalidated_by text,
  invalidated_at timestamptz,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, entry_id),
  CHECK (valid_until IS NULL OR valid_until > valid_from)
);
CREATE INDEX knowledge_entries_hash ON knowledge_entries (org_id, body_hash) WHERE status = 'active';
CREATE INDEX knowledge_entries_subjects ON knowledge_entries USING gin (org_id, subject_ids);
CREATE INDEX knowledge_entries_recorded ON knowledge_entries (org_id, recorded_at DESC, entry_id);
SELECT wops_search_indexes('knowledge_entries', ARRAY['body'], ARRAY[]::text[], ARRAY[]::text[], ARRAY[]::text[]);
-- A common word over 100k entries: rank the newest candidates, found day-window by day-window (058).
SELECT wops_search_recent('knowledge_entries', 'recorded_at');

-- Every revision's words (rewrite): which text a served revision said.
CREATE TABLE knowledge_entry_revisions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  entry_id text NOT NULL,
  revision integer NOT NULL,
  body text NOT NULL,
  verified boolean NOT NULL,
  written_by text NOT NULL,
  written_at timestamptz NOT NULL,
  approval_id text,
  PRIMARY KEY (org_id, entry_id, revision),
  FOREIGN KEY (org_id, entry_id) REFERENCES knowledge_entries (org_id, entry_id)
);

-- A search (ks_): who asked, what they were served. The query text is kept to answer "why was I shown this" and
-- erased at 30 days; the ledger has only the ids and revisions served.
CREATE TABLE knowledge_searches (
  org_id text NOT NULL REFERENCES orgs(org_id),
  search_id text NOT NULL,
  actor_id text NOT NULL,
  query text,
  mode text NOT NULL CHECK (mode IN ('fulltext')),
  as_of timestamptz,
  result_count integer NOT NULL,
  searched_at timestamptz NOT NULL,
  erased_at timestamptz,
  PRIMARY KEY (org_id, search_id)
);

CREATE TABLE knowledge_search_results (
  org_id text NOT NULL REFERENCES orgs(org_id),
  search_id text NOT NULL,
  entry_id text NOT NULL,
  revision integer NOT NULL,
  rank integer NOT NULL,
  PRIMARY KEY (org_id, search_id, entry_id),
  FOREIGN KEY (org_id, search_id) REFERENCES knowledge_searches (org_id, search_id)
);
-- invalidate's servedTo: who was served an entry.
CREATE INDEX knowledge_search_results_entry ON knowledge_search_results (org_id, entry_id);

-- Memory blocks (mem_), as Letta's: a label, a description telling the agent what it is for, a value within a limit.
CREATE TABLE memory_blocks (
  org_id text NOT NULL REFERENCES orgs(org_id),
  block_id text NOT NULL,
  owner_id text NOT NULL,
  label text NOT NULL CHECK (label ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'),
  description text NOT NULL DEFAULT '',
  value text NOT NULL,
  char_limit integer NOT NULL CHECK (char_limit BETWEEN 1 AND 20000),
  -- self: the owner's prompt; org: every agent's; agents: the agents listed.
  audience text NOT NULL CHECK (audience IN ('self', 'org', 'agents')),
  audience_agents text[] NOT NULL DEFAULT '{}',
  read_only boolean NOT NULL DEFAULT false,
  version integer NOT NULL,
  sha256 text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  updated_by text NOT NULL,
  PRIMARY KEY (org_id, block_id),
  CHECK (length(value) <= char_limit)
);
CREATE UNIQUE INDEX memory_blocks_label ON memory_blocks (org_id, owner_id, label);

CREATE TABLE memory_block_versions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  block_id text NOT NULL,
  version integer NOT NULL,
  value text NOT NULL,
  sha256 text NOT NULL,
  written_by text NOT NULL,
  written_at timestamptz NOT NULL,
  amendment_id text,
  approval_id text,
  PRIMARY KEY (org_id, block_id, version),
  FOREIGN KEY (org_id, block_id) REFERENCES memory_blocks (org_id, block_id)
);

-- Amendments (mam_): a change proposed on a base version, merged or rejected by the owner or an admin.
CREATE TABLE memory_amendments (
  org_id text NOT NULL REFERENCES orgs(org_id),
  amendment_id text NOT NULL,
  block_id text NOT NULL,
  base_version integer NOT NULL,
  op text NOT NULL CHECK (op IN ('append', 'replace')),
  old_text text,
  new_text text NOT NULL,
  reason text NOT NULL,
  proposer_id text NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'merged', 'rejected')),
  decided_by text,
  decided_at timestamptz,
  merged_version integer,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, amendment_id),
  FOREIGN KEY (org_id, block_id) REFERENCES memory_blocks (org_id, block_id),
  CHECK ((op = 'replace') = (old_text IS NOT NULL))
);
CREATE INDEX memory_amendments_block ON memory_amendments (org_id, block_id, status);

-- Standard operating procedures (sop_): the current version on the row, every version in sop_versions.
CREATE TABLE sops (
  org_id text NOT NULL REFERENCES orgs(org_id),
  sop_id text NOT NULL,
  slug text NOT NULL,
  title text NOT NULL,
  purpose text NOT NULL,
  trigger text NOT NULL DEFAULT '',
  owner_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('draft', 'active', 'archived')),
  version integer NOT NULL,
  sha256 text NOT NULL,
  -- [{id, text, kind, method?, requiresHuman}]
  steps jsonb NOT NULL,
  -- The steps' texts joined, for search; the methods the steps name, for list {method}.
  steps_text text NOT NULL DEFAULT '',
  methods text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  updated_by text NOT NULL,
  PRIMARY KEY (org_id, sop_id)
);
CREATE UNIQUE INDEX sops_slug ON sops (org_id, slug);
CREATE INDEX sops_methods ON sops USING gin (org_id, methods);
SELECT wops_search_indexes('sops', ARRAY['title'], ARRAY['purpose', 'trigger'], ARRAY['steps_text'], ARRAY['title']);

CREATE TABLE sop_versions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  sop_id text NOT NULL,
  version integer NOT NULL,
  title text NOT NULL,
  purpose text NOT NULL,
  trigger text NOT NULL,
  status text NOT NULL,
  steps jsonb NOT NULL,
  sha256 text NOT NULL,
  written_by text NOT NULL,
  written_at timestamptz NOT NULL,
  approval_id text,
  PRIMARY KEY (org_id, sop_id, version),
  FOREIGN KEY (org_id, sop_id) REFERENCES sops (org_id, sop_id)
);
