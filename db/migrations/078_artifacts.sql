-- tables: artifact: artifacts, artifact_responses
-- Artifacts (docs/families/artifact.md): cards, forms, tables and charts posted in messages, and the responses people
-- give them. Titles, components, data and submitted values live only in these rows, never in the ledger, the design
-- log or a notification; a message delete erases them (state erased, content and responses gone). Every table keys by
-- org_id first.

-- doc: {components, data, actions, fallbackText} as checked. inputs_revision: the revision its inputs or actions
-- last changed (acts on an older one are refused). patch_window/patches: the patch rate (2 a second).
CREATE TABLE artifacts (
  org_id text NOT NULL REFERENCES orgs(org_id),
  artifact_id text NOT NULL,
  author_id text NOT NULL,
  state text NOT NULL CHECK (state IN ('draft', 'posted', 'closed', 'erased')),
  revision integer NOT NULL DEFAULT 1,
  inputs_revision integer NOT NULL DEFAULT 1,
  title text,
  doc jsonb,
  channel_id text,
  message_id text,
  responses integer NOT NULL DEFAULT 0,
  expires_at timestamptz,
  closed_by text,
  closed_at timestamptz,
  patch_window timestamptz,
  patches integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, artifact_id)
);
CREATE INDEX artifacts_updated ON artifacts (org_id, updated_at, artifact_id);
CREATE INDEX artifacts_channel ON artifacts (org_id, channel_id, updated_at);
CREATE INDEX artifacts_author ON artifacts (org_id, author_id, updated_at);
CREATE INDEX artifacts_message ON artifacts (org_id, message_id);

-- One row per act that was answered; seq orders an artifact's responses (get responsesAfter).
CREATE TABLE artifact_responses (
  org_id text NOT NULL REFERENCES orgs(org_id),
  response_id text NOT NULL,
  artifact_id text NOT NULL,
  seq integer NOT NULL,
  action_id text NOT NULL,
  actor_id text NOT NULL,
  actor_kind text NOT NULL CHECK (actor_kind IN ('human', 'agent')),
  revision integer NOT NULL,
  input_values jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, response_id),
  UNIQUE (org_id, artifact_id, seq)
);
CREATE INDEX artifact_responses_actor ON artifact_responses (org_id, artifact_id, actor_id);
