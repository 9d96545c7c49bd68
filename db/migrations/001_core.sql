-- tables: people: orgs, api_keys
-- tables: people: principals
-- tables: ledger: ledger_heads, events, idempotency
-- tables: approval: approvals, signature_holds
-- tables: people: pairings
-- tables: core: instance_secrets
-- Tenancy, credentials, the hash-chained ledger, idempotency, approvals, pairing.
-- org_id is the first column of every key, ready for distribution by org.

CREATE TABLE orgs (
  org_id text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  parent_org_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  decision_rights jsonb,
  decision_rights_at timestamptz,
  decision_rights_by text
);

CREATE TABLE principals (
  org_id text NOT NULL REFERENCES orgs(org_id),
  principal_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('human', 'agent')),
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, principal_id)
);

CREATE TABLE api_keys (
  org_id text NOT NULL REFERENCES orgs(org_id),
  key_id text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  name text NOT NULL,
  tier text,
  scopes text[] NOT NULL,
  principal_id text NOT NULL,
  created_by text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  PRIMARY KEY (org_id, key_id),
  FOREIGN KEY (org_id, principal_id) REFERENCES principals(org_id, principal_id)
);

-- The chain head per org. prev_hash and at are scratch columns of the append statement: an UPDATE's
-- RETURNING sees only new values, so the old row_hash is carried over in prev_hash.
CREATE TABLE ledger_heads (
  org_id text PRIMARY KEY REFERENCES orgs(org_id),
  seq bigint NOT NULL DEFAULT 0,
  row_hash text NOT NULL DEFAULT '',
  prev_hash text NOT NULL DEFAULT '',
  at text NOT NULL DEFAULT ''
);

-- payload is the canonical JSON text exactly as hashed; at is the exact ISO string hashed.
CREATE TABLE events (
  org_id text NOT NULL,
  seq bigint NOT NULL,
  family text NOT NULL,
  kind text NOT NULL,
  entity_id text NOT NULL DEFAULT '',
  actor text NOT NULL DEFAULT '',
  at text NOT NULL,
  payload text NOT NULL,
  prev_hash text NOT NULL,
  row_hash text NOT NULL,
  PRIMARY KEY (org_id, seq)
);

-- Append-only: the database itself refuses to change or remove a ledger row.
CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger events are append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION events_append_only();

CREATE TABLE idempotency (
  org_id text NOT NULL,
  actor text NOT NULL,
  method text NOT NULL,
  key text NOT NULL,
  frame text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, actor, method, key)
);

CREATE TABLE approvals (
  org_id text NOT NULL REFERENCES orgs(org_id),
  approval_id text NOT NULL,
  action_class text NOT NULL,
  payload_hash text NOT NULL,
  subject_kind text NOT NULL,
  subject_id text NOT NULL,
  summary text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  requested_by text NOT NULL,
  requested_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  decided_by text,
  decided_at timestamptz,
  note text,
  consumed_at timestamptz,
  consumed_by text,
  PRIMARY KEY (org_id, approval_id)
);
CREATE INDEX approvals_by_status ON approvals (org_id, status, requested_at);

CREATE TABLE pairings (
  org_id text NOT NULL REFERENCES orgs(org_id),
  pairing_id text NOT NULL,
  agent_name text NOT NULL,
  code text NOT NULL,
  poll_secret_hash text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'claimed')),
  tier text NOT NULL DEFAULT 'agent',
  requested_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  approved_by text,
  agent_id text,
  key_id text,
  PRIMARY KEY (org_id, pairing_id)
);

-- Secrets of this installation (the HMAC key that signs approvals), created on first start.
CREATE TABLE instance_secrets (
  name text PRIMARY KEY,
  value text NOT NULL
);

-- A signature act held for want of proof: what exactly would run, so a human can see the payload behind
-- its hash and approval.request can take the summary from here rather than from the requester.
CREATE TABLE signature_holds (
  org_id text NOT NULL REFERENCES orgs(org_id),
  payload_hash text NOT NULL,
  action_class text NOT NULL,
  subject_id text NOT NULL,
  summary text NOT NULL,
  method text NOT NULL,
  params jsonb NOT NULL,
  held_by text NOT NULL,
  held_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  seq bigint NOT NULL,
  PRIMARY KEY (org_id, payload_hash)
);
