-- tables: people: invitations
-- tables: people: billing_subscriptions
-- Invitations and billing (people.md: invitation, billing; seats).
-- An invitation gives one human member access: its link carries the org id, the invitation id and a secret, so
-- acceptance finds the row by its primary key (no lookup across orgs) and only the secret's SHA-256 is stored.
-- Expired is derived (pending past expires_at), never written: no job has to keep it true.
CREATE TABLE invitations (
  org_id text NOT NULL REFERENCES orgs(org_id),
  invitation_id text NOT NULL,
  member_id text NOT NULL,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'approver', 'member', 'viewer')),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'revoked')),
  token_hash text NOT NULL,
  expires_at timestamptz NOT NULL,
  -- Mails sent (create is the first); resend_times keeps the last 24 h of resends for its limit.
  sends integer NOT NULL DEFAULT 1,
  resend_times timestamptz[] NOT NULL DEFAULT '{}',
  -- The member was made for this invitation (status invited): revoking it archives that member.
  created_member boolean NOT NULL,
  invited_by text NOT NULL,
  key_id text,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  accepted_at timestamptz,
  revoked_at timestamptz,
  PRIMARY KEY (org_id, invitation_id),
  FOREIGN KEY (org_id, member_id) REFERENCES principals (org_id, principal_id)
);
-- At most one pending invitation per address (an expired one is still pending here: a new invite supersedes it).
CREATE UNIQUE INDEX invitations_pending_email ON invitations (org_id, lower(email)) WHERE status = 'pending';
CREATE INDEX invitations_member ON invitations (org_id, member_id);

-- The subscription: no row = no limits (orgs from before billing keep working). Plans are operator-configured
-- names (BILLING_PLANS), so the column is free text checked by the method, not here.
CREATE TABLE billing_subscriptions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  plan text NOT NULL,
  cycle text NOT NULL CHECK (cycle IN ('monthly', 'annual')),
  seats integer NOT NULL CHECK (seats >= 0),
  agent_seats integer NOT NULL CHECK (agent_seats >= 0),
  contact text,
  tax_id text,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id)
);
