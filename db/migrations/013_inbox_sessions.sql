-- tables: people: inbox_sessions
-- Approval inbox sessions, shared by every gateway process (domain/people/user/inbox-sessions.ts). The cookie holds a
-- random id; only its SHA-256 is stored. A session names the key it was opened with by key_id: the key itself
-- is never stored (keys are stored hashed in api_keys), and every inbox call re-checks that key, so revoking it
-- ends the session at its next call.
CREATE TABLE inbox_sessions (
  org_id text NOT NULL,
  -- Public handle (notifications, logs); never enough to use the session.
  session_id text NOT NULL,
  -- The one global lookup (like api_keys.key_hash): a cookie names no org.
  id_hash text NOT NULL UNIQUE,
  principal_id text NOT NULL,
  key_id text NOT NULL,
  -- Random per session; sent back by the page in x-csrf-token.
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  -- created_at + the maximum age: the session ends then whatever its use (the idle limit is checked against
  -- last_seen_at by each lookup).
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, session_id),
  FOREIGN KEY (org_id, key_id) REFERENCES api_keys(org_id, key_id),
  FOREIGN KEY (org_id, principal_id) REFERENCES principals(org_id, principal_id)
);

-- The per-principal cap drops the least recently used.
CREATE INDEX inbox_sessions_principal ON inbox_sessions (org_id, principal_id, last_seen_at);
