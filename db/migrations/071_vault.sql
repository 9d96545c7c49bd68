-- tables: vault: credentials, credential_versions, credential_leases, integrations, integration_tools, tool_calls, tool_call_heads
-- The vault and the remote MCP servers agents call through it (docs/families/runtime.md, Secrets and integrations).
-- A secret's value exists here only sealed: per version a random data key (DEK) seals it with AES-256-GCM, and a
-- master key (VAULT_MASTER_KEYS, kek_id) wraps the DEK. Destroying a secret deletes ciphertexts and DEKs and keeps
-- the metadata. Tool calls are a per-org hash chain of hashes and statuses, never arguments or results.

CREATE TABLE credentials (
  org_id text NOT NULL REFERENCES orgs(org_id),
  credential_id text NOT NULL,
  name text NOT NULL,
  state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled', 'destroyed')),
  -- Principal ids, '*' for every member, empty: only integrations use it.
  leasable_by text[] NOT NULL DEFAULT '{}',
  default_ttl_seconds integer NOT NULL,
  max_ttl_seconds integer NOT NULL,
  approval text NOT NULL DEFAULT 'none' CHECK (approval IN ('none', 'each_lease')),
  rotation_period_days integer,
  rotated_at timestamptz NOT NULL,
  current_version integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  created_by text NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, credential_id)
);
CREATE UNIQUE INDEX credentials_name ON credentials (org_id, name);

CREATE TABLE credential_versions (
  org_id text NOT NULL,
  credential_id text NOT NULL,
  version integer NOT NULL,
  -- The master key that wraps the DEK; null once shredded.
  kek_id text,
  -- iv (12) | tag (16) | wrapped DEK (32), and iv | tag | sealed value: both null once shredded.
  wrapped_dek bytea,
  sealed bytea,
  created_at timestamptz NOT NULL,
  created_by text NOT NULL,
  shredded_at timestamptz,
  PRIMARY KEY (org_id, credential_id, version),
  FOREIGN KEY (org_id, credential_id) REFERENCES credentials (org_id, credential_id)
);
CREATE INDEX credential_versions_kek ON credential_versions (kek_id) WHERE kek_id IS NOT NULL;

CREATE TABLE credential_leases (
  org_id text NOT NULL,
  lease_id text NOT NULL,
  credential_id text NOT NULL,
  version integer NOT NULL,
  principal_id text NOT NULL,
  -- Why it was taken: shown to admins in credential.list, never in events.
  purpose text NOT NULL,
  task_id text,
  approval_id text,
  issued_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoked_by text,
  PRIMARY KEY (org_id, lease_id),
  FOREIGN KEY (org_id, credential_id) REFERENCES credentials (org_id, credential_id)
);
CREATE INDEX credential_leases_credential ON credential_leases (org_id, credential_id, expires_at);
CREATE INDEX credential_leases_principal ON credential_leases (org_id, principal_id, expires_at);

CREATE TABLE integrations (
  org_id text NOT NULL REFERENCES orgs(org_id),
  integration_id text NOT NULL,
  name text NOT NULL,
  url text NOT NULL,
  auth_kind text NOT NULL CHECK (auth_kind IN ('none', 'bearer', 'header')),
  auth_header text,
  credential_id text,
  -- ["*"], tool names, or null: the tools the server marks readOnlyHint.
  allow_tools jsonb,
  -- Principal ids or '*': who may list and call its tools (admins always may).
  access text[] NOT NULL DEFAULT '{*}',
  state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disconnected')),
  toolset_version text NOT NULL,
  server_name text NOT NULL DEFAULT '',
  server_version text NOT NULL DEFAULT '',
  connected_at timestamptz NOT NULL,
  connected_by text NOT NULL,
  -- When the live definitions were last compared with the pins (invokeTool re-lists at most every 60 s).
  checked_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, integration_id),
  FOREIGN KEY (org_id, credential_id) REFERENCES credentials (org_id, credential_id)
);
CREATE UNIQUE INDEX integrations_name ON integrations (org_id, name);

CREATE TABLE integration_tools (
  org_id text NOT NULL,
  integration_id text NOT NULL,
  name text NOT NULL,
  -- The definition as pinned (canonical JSON) and its SHA-256.
  definition jsonb NOT NULL,
  sha256 text NOT NULL,
  read_only boolean NOT NULL,
  allowed boolean NOT NULL,
  PRIMARY KEY (org_id, integration_id, name),
  FOREIGN KEY (org_id, integration_id) REFERENCES integrations (org_id, integration_id)
);

CREATE TABLE tool_calls (
  org_id text NOT NULL,
  seq bigint NOT NULL,
  record_id text NOT NULL,
  at text NOT NULL,
  -- {integrationId, tool, actor, argsHash, resultHash, status, latencyMs, truncated}: hashes, never contents.
  record text NOT NULL,
  prev_hash text NOT NULL,
  row_hash text NOT NULL,
  integration_id text NOT NULL,
  PRIMARY KEY (org_id, seq)
);
CREATE INDEX tool_calls_rate ON tool_calls (org_id, integration_id, at);

CREATE TABLE tool_call_heads (
  org_id text NOT NULL REFERENCES orgs(org_id),
  seq bigint NOT NULL DEFAULT 0,
  row_hash text NOT NULL DEFAULT '',
  PRIMARY KEY (org_id)
);
