-- tables: people: profiles, profile_sections
-- tables: notification: notification_preferences, notification_cursors, notifications
-- Profiles (people.md: what a member tells the org about themselves) and notification preferences and delivery.
-- A profile row appears on the member's first profile write; a member without one has an empty profile.
CREATE TABLE profiles (
  org_id text NOT NULL,
  member_id text NOT NULL,
  headline text,
  bio text,
  pronouns text,
  -- E.164, normalised by libphonenumber-js.
  phone text,
  links jsonb NOT NULL DEFAULT '[]',
  expertise text[] NOT NULL DEFAULT '{}',
  working_hours jsonb,
  -- {"32": sha256, "96": sha256, "256": sha256}: WebP blobs held (blob_refs) by holder '<memberId>#avatar'.
  avatar jsonb,
  version integer NOT NULL DEFAULT 1,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, member_id),
  FOREIGN KEY (org_id, member_id) REFERENCES principals (org_id, principal_id)
);

-- Free-form sections of a profile (psec_). Deleted ones stay as tombstones; live ones are numbered 0..n-1.
CREATE TABLE profile_sections (
  org_id text NOT NULL,
  section_id text NOT NULL,
  member_id text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  position integer NOT NULL CHECK (position >= 0),
  status text NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'deleted')),
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, section_id),
  FOREIGN KEY (org_id, member_id) REFERENCES principals (org_id, principal_id)
);
CREATE INDEX profile_sections_member ON profile_sections (org_id, member_id, position) WHERE status = 'live';

-- Preferences of one member, or the org's defaults (target 'org'); only what was set is stored (sparse overlay).
CREATE TABLE notification_preferences (
  org_id text NOT NULL,
  target text NOT NULL,
  events jsonb NOT NULL DEFAULT '{}',
  digest jsonb,
  quiet_hours jsonb,
  version integer NOT NULL DEFAULT 1,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, target)
);

-- The notifier's place in each org's ledger: events up to seq have been turned into notifications. Orgs that
-- exist now start at their head (their history is not mailed out); an org created later starts at 0.
CREATE TABLE notification_cursors (
  org_id text NOT NULL REFERENCES orgs (org_id),
  seq bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id)
);
INSERT INTO notification_cursors (org_id, seq) SELECT org_id, seq FROM ledger_heads;

-- Notifications the notifier decided on, written with the cursor's advance (so none is lost or made twice):
-- instant ones wait for their send (after commit, or after quiet hours), digest ones for the digest job.
CREATE TABLE notifications (
  org_id text NOT NULL,
  seq bigint NOT NULL,
  recipient_id text NOT NULL,
  type text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('instant', 'digest')),
  entity_id text NOT NULL DEFAULT '',
  not_before timestamptz NOT NULL DEFAULT now(),
  -- sent: the relay (or internal delivery) took it; outboxed: no relay configured, written to the outbox only;
  -- dropped: at send time the recipient no longer wants it (mode off) or may no longer hear it (not active).
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'outboxed', 'failed', 'dropped')),
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  PRIMARY KEY (org_id, seq, recipient_id, type)
);
CREATE INDEX notifications_due ON notifications (not_before) WHERE status = 'pending';
