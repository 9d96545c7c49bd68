-- tables: branding: brand_heads, brand_foundations, brand_versions, brand_proposals, design_log_heads, design_log
-- The brand foundation (docs/families/branding.md): one immutable document per foundation version, the history of
-- versions (foundation and, later, library), proposals, and the design log. Token values, names, rationales and
-- voice texts live only in these rows, never in the ledger. Every table keys by org_id first.

-- The history's last version, and the version whose foundation is live: every commit locks this row.
CREATE TABLE brand_heads (
  org_id text NOT NULL REFERENCES orgs(org_id),
  version integer NOT NULL DEFAULT 0,
  foundation_version integer NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id)
);

-- doc: {name, logos, tokens, usage, voice} as checked; sha256 of its canonical JSON.
CREATE TABLE brand_foundations (
  org_id text NOT NULL REFERENCES orgs(org_id),
  version integer NOT NULL CHECK (version >= 1),
  doc jsonb NOT NULL,
  sha256 text NOT NULL,
  saved_by text NOT NULL,
  saved_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, version)
);

-- One row per version. A foundation change cites its ledger event (ledger_seq); a library change its design record.
CREATE TABLE brand_versions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  version integer NOT NULL CHECK (version >= 1),
  kind text NOT NULL,
  scope text NOT NULL CHECK (scope IN ('foundation', 'library')),
  actor text NOT NULL,
  item_ids jsonb NOT NULL DEFAULT '[]',
  ledger_seq bigint,
  design_seq bigint,
  from_version integer,
  proposal_id text,
  approval_id text,
  undone_by integer,
  at timestamptz NOT NULL,
  PRIMARY KEY (org_id, version),
  CHECK ((ledger_seq IS NULL) <> (design_seq IS NULL))
);
CREATE INDEX brand_versions_scope ON brand_versions (org_id, scope, version);

CREATE TABLE brand_proposals (
  org_id text NOT NULL REFERENCES orgs(org_id),
  proposal_id text NOT NULL,
  base_version integer NOT NULL,
  patch jsonb NOT NULL,
  patch_hash text NOT NULL,
  paths jsonb NOT NULL,
  rationale text NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'applied', 'declined', 'expired')),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  decided_by text,
  decided_at timestamptz,
  applied_version integer,
  PRIMARY KEY (org_id, proposal_id)
);
CREATE INDEX brand_proposals_open ON brand_proposals (org_id, status, created_at);
CREATE UNIQUE INDEX brand_proposals_same_open ON brand_proposals (org_id, patch_hash) WHERE status = 'open';

-- The design log (ledger/record-chain.ts): one record per write of an R method that writes, a per-org SHA-256 chain
-- served at GET /ops?source=design. method, kind and entity_id repeat record fields; verify checks they agree.
CREATE TABLE design_log_heads (
  org_id text NOT NULL REFERENCES orgs(org_id),
  seq bigint NOT NULL DEFAULT 0,
  row_hash text NOT NULL DEFAULT '',
  PRIMARY KEY (org_id)
);

CREATE TABLE design_log (
  org_id text NOT NULL,
  seq bigint NOT NULL,
  record_id text NOT NULL,
  at text NOT NULL,
  record text NOT NULL,
  prev_hash text NOT NULL,
  row_hash text NOT NULL,
  method text NOT NULL,
  kind text NOT NULL,
  entity_id text NOT NULL,
  PRIMARY KEY (org_id, seq),
  UNIQUE (org_id, record_id)
);
CREATE INDEX design_log_entity ON design_log (org_id, entity_id);

CREATE FUNCTION design_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'design log records are append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER design_log_append_only BEFORE UPDATE OR DELETE ON design_log
  FOR EACH ROW EXECUTE FUNCTION design_log_append_only();
