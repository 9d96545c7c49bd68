-- tables: runtime: agent_registrations, agent_health, presence_beats, lease_names, leases, lease_state, cost_entries, company_profiles, office_locations
-- The agent runtime's control plane (docs/families/runtime.md): registrations beating on a TTL, principals' presence,
-- named leases with a fencing token per name, model spend agents report, the company profile and its offices.
-- Health and expiry are computed from these rows on the database's clock, so no job has to move them. Notes,
-- status texts and addresses live only here, never in the ledger.

CREATE TABLE agent_registrations (
  org_id text NOT NULL REFERENCES orgs(org_id),
  registration_id text NOT NULL,
  principal_id text NOT NULL,
  instance text NOT NULL,
  name text NOT NULL,
  version text NOT NULL,
  capabilities text[] NOT NULL DEFAULT '{}',
  ttl_seconds integer NOT NULL CHECK (ttl_seconds BETWEEN 15 AND 3600),
  -- What the last beat said; lapsed and 72-hour stops are computed from last_beat_at and critical_since.
  reported_status text NOT NULL CHECK (reported_status IN ('passing', 'warning', 'critical', 'stopped')),
  critical_since timestamptz,
  note text,
  last_beat_at timestamptz NOT NULL,
  registered_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, registration_id),
  UNIQUE (org_id, principal_id, instance)
);

-- Health now, on the database's clock: stopped (reported, or critical for 72 hours), critical (reported, or no beat
-- within the TTL: lapsed), else what the last beat said. critical_from: since when it is critical.
CREATE VIEW agent_health AS
SELECT r.*, t.expires_at, t.lapsed, extract(epoch FROM t.at - r.last_beat_at)::float8 AS since_beat_seconds,
       CASE WHEN r.reported_status = 'stopped' THEN 'stopped'
            WHEN coalesce(r.critical_since, CASE WHEN t.lapsed THEN t.expires_at END) <= t.at - interval '72 hours' THEN 'stopped'
            WHEN t.lapsed THEN 'critical'
            ELSE r.reported_status END AS status,
       CASE WHEN r.reported_status <> 'stopped' THEN coalesce(r.critical_since, CASE WHEN t.lapsed THEN t.expires_at END) END AS critical_from
  FROM agent_registrations r
 CROSS JOIN LATERAL (
   SELECT r.last_beat_at + make_interval(secs => r.ttl_seconds) AS expires_at, clock_timestamp() AS at,
          r.reported_status <> 'stopped' AND r.last_beat_at + make_interval(secs => r.ttl_seconds) <= clock_timestamp() AS lapsed) t;

CREATE TABLE presence_beats (
  org_id text NOT NULL REFERENCES orgs(org_id),
  principal_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('available', 'busy', 'away', 'dnd')),
  task_id text,
  status_text text,
  expires_at timestamptz NOT NULL,
  beat_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, principal_id)
);

-- One row per lease name: its last fencing token and current lease; claims of one name queue on this row's lock.
CREATE TABLE lease_names (
  org_id text NOT NULL REFERENCES orgs(org_id),
  name text NOT NULL,
  token bigint NOT NULL DEFAULT 0,
  lease_id text,
  PRIMARY KEY (org_id, name)
);

CREATE TABLE leases (
  org_id text NOT NULL REFERENCES orgs(org_id),
  lease_id text NOT NULL,
  name text NOT NULL,
  holder_id text NOT NULL,
  holder_instance text NOT NULL,
  registration_id text,
  fencing_token bigint NOT NULL,
  ttl_seconds integer NOT NULL,
  -- held (lapsed once expires_at passes, computed) or released; a lapsed lease replaced by a new holder is stored lapsed.
  status text NOT NULL CHECK (status IN ('held', 'released', 'lapsed')),
  acquired_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  released_at timestamptz,
  released_by text,
  PRIMARY KEY (org_id, lease_id),
  UNIQUE (org_id, name, fencing_token)
);
CREATE INDEX leases_registration ON leases (org_id, registration_id) WHERE status = 'held';
CREATE INDEX leases_recent ON leases (org_id, name, expires_at);

-- A held lease past its expiry is lapsed, on the database's clock.
CREATE VIEW lease_state AS
SELECT l.*, CASE WHEN l.status = 'held' AND l.expires_at <= clock_timestamp() THEN 'lapsed' ELSE l.status END AS state
  FROM leases l;

CREATE TABLE cost_entries (
  org_id text NOT NULL REFERENCES orgs(org_id),
  entry_id text NOT NULL,
  actor text NOT NULL,
  external_id text NOT NULL,
  provider text NOT NULL,
  model text NOT NULL,
  operation text NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  cache_read_tokens bigint NOT NULL,
  cost_micro_usd bigint NOT NULL,
  price_source text NOT NULL CHECK (price_source IN ('reported', 'table', 'unpriced')),
  task_id text,
  -- UTC ISO strings with milliseconds, as ai_audit.at: the rollup groups both by the same substrings.
  occurred_at text NOT NULL,
  reported_at timestamptz NOT NULL,
  request_id text NOT NULL,
  PRIMARY KEY (org_id, entry_id),
  UNIQUE (org_id, actor, external_id)
);
CREATE INDEX cost_entries_occurred ON cost_entries (org_id, occurred_at);

CREATE TABLE company_profiles (
  org_id text NOT NULL REFERENCES orgs(org_id),
  legal_name text,
  trading_name text,
  abn text,
  time_zone text,
  currency text,
  phone text,
  website text,
  version integer NOT NULL DEFAULT 0,
  updated_at timestamptz,
  PRIMARY KEY (org_id)
);

CREATE TABLE office_locations (
  org_id text NOT NULL REFERENCES orgs(org_id),
  location_id text NOT NULL,
  name text NOT NULL,
  address jsonb NOT NULL,
  time_zone text NOT NULL,
  is_head_office boolean NOT NULL DEFAULT false,
  status text NOT NULL CHECK (status IN ('active', 'archived')),
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, location_id)
);
-- Exactly one head office among active offices (at most one here; the handlers keep at least one).
CREATE UNIQUE INDEX office_locations_head ON office_locations (org_id) WHERE is_head_office AND status = 'active';
