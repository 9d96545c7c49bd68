-- tables: governance: decision_counters, decisions, decision_versions, decision_signatures, decision_comments
-- Decisions (governance.md: the decision family). ADR-like records numbered per org, proposed and re-proposed in
-- versions by their driver, signed per version, adopted under the org's decision rights (orgs.decision_rights),
-- superseded (linked both ways) or reversed/withdrawn; closed is final. Free text (title, context, decision,
-- consequences, outcome, reasons, comment bodies) lives only in these rows, never in the ledger.

-- Gapless per-org numbers (D-1, D-2, …): the counter row is locked by a proposal until it commits.
CREATE TABLE decision_counters (
  org_id text NOT NULL REFERENCES orgs(org_id),
  last_number integer NOT NULL,
  PRIMARY KEY (org_id)
);

CREATE TABLE decisions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  decision_id text NOT NULL,
  number integer NOT NULL,
  -- The current version's content (decision_versions keeps every version's).
  title text NOT NULL,
  area text NOT NULL,
  context text,
  decision text NOT NULL,
  consequences text,
  -- Charter operations (area charter only), applied by charter.amend once adopted: {baseVersion?, ops: [{op, params}]}.
  amendment jsonb,
  amendment_applied_version integer,
  amendment_applied_at timestamptz,
  links jsonb NOT NULL DEFAULT '[]',
  version integer NOT NULL DEFAULT 1,
  content_hash text NOT NULL,
  status text NOT NULL DEFAULT 'proposed'
    CHECK (status IN ('proposed', 'adjustment_requested', 'adopted', 'superseded', 'reversed', 'withdrawn')),
  driver text NOT NULL,
  outcome text,
  review_on date,
  supersedes text[] NOT NULL DEFAULT '{}',
  superseded_by text,
  adopted_version integer,
  adopted_hash text,
  adopted_by text,
  adopted_at timestamptz,
  adopted_override boolean,
  adopted_approval text,
  closed_by text,
  closed_at timestamptz,
  closed_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, decision_id),
  UNIQUE (org_id, number),
  FOREIGN KEY (org_id, superseded_by) REFERENCES decisions (org_id, decision_id),
  -- An adopted record names the version it adopted; a superseded one was adopted first and names its successor.
  CHECK (status NOT IN ('adopted', 'superseded', 'reversed') OR (adopted_version IS NOT NULL AND adopted_hash IS NOT NULL)),
  CHECK ((status = 'superseded') = (superseded_by IS NOT NULL))
);
-- GET /decision.list: newest first by number (the unique index), by status, by area; open decisions by area
-- (awaiting=me looks up the open areas first).
CREATE INDEX decisions_by_status ON decisions (org_id, status, number DESC);
CREATE INDEX decisions_by_area ON decisions (org_id, area, number DESC);
CREATE INDEX decisions_open_by_area ON decisions (org_id, area, number DESC) WHERE status IN ('proposed', 'adjustment_requested');

-- Every version's content as proposed; a signature binds a version and its content hash.
CREATE TABLE decision_versions (
  org_id text NOT NULL,
  decision_id text NOT NULL,
  version integer NOT NULL,
  content jsonb NOT NULL,
  content_hash text NOT NULL,
  proposed_by text NOT NULL,
  proposed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, decision_id, version),
  FOREIGN KEY (org_id, decision_id) REFERENCES decisions (org_id, decision_id)
);

-- One signature per signer and version. signer: the human who signed (their own call, or relayed by an agent
-- through an approval the human decided: relayed_by, approval_id) or an agent endorsing as itself.
CREATE TABLE decision_signatures (
  org_id text NOT NULL,
  signature_id text NOT NULL,
  decision_id text NOT NULL,
  version integer NOT NULL,
  content_hash text NOT NULL,
  signer text NOT NULL,
  signer_kind text NOT NULL CHECK (signer_kind IN ('human', 'agent')),
  relayed_by text,
  approval_id text,
  signed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, signature_id),
  UNIQUE (org_id, decision_id, version, signer),
  FOREIGN KEY (org_id, decision_id, version) REFERENCES decision_versions (org_id, decision_id, version)
);

-- Comments and adjustment requests (kind adjustment: blocks adoption of its version until a new version is
-- proposed or its author signs that version: resolved_at).
CREATE TABLE decision_comments (
  org_id text NOT NULL,
  comment_id text NOT NULL,
  decision_id text NOT NULL,
  version integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('comment', 'adjustment')),
  body text NOT NULL,
  author text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz,
  PRIMARY KEY (org_id, comment_id),
  FOREIGN KEY (org_id, decision_id) REFERENCES decisions (org_id, decision_id)
);
CREATE INDEX decision_comments_by_decision ON decision_comments (org_id, decision_id, created_at, comment_id);

-- Full text over the current version: title first, then the decision, then context and consequences; typos on the title.
SELECT wops_search_indexes('decisions', ARRAY['title'], ARRAY['decision'], ARRAY['context', 'consequences'], ARRAY['title']);
