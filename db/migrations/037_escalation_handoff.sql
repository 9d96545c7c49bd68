-- tables: governance: escalations
-- tables: governance: handoffs
-- Escalations and handoffs (governance.md). An escalation climbs a chain of humans fixed when it is raised; its
-- level is read from the clock (levelSince + escalateAfter per step), never written by a job. A handoff offers a
-- task, decision or escalation to another member; acceptance moves ownership in its own transaction. Expiry is
-- read from the clock too: an offer past expires_at counts as expired while its row still says offered (the next
-- offer for its subject marks it). Free text (title, resolution, brief, reason) lives only in these rows.

CREATE TABLE escalations (
  org_id text NOT NULL REFERENCES orgs(org_id),
  escalation_id text NOT NULL,
  title text NOT NULL,
  reason text NOT NULL CHECK (reason IN ('outside_rights', 'blocked', 'risk', 'deadline')),
  severity text NOT NULL CHECK (severity IN ('low', 'normal', 'high', 'critical')),
  area text,
  subject_id text,
  raised_by text NOT NULL,
  to_principal text,
  -- The humans it climbs through: level n is chain[n] (PostgreSQL arrays are 1-based, as levels are).
  chain text[] NOT NULL CHECK (cardinality(chain) >= 1),
  escalate_after_minutes integer NOT NULL CHECK (escalate_after_minutes > 0),
  -- When level 1 began: raised_at, or when a handoff of it was accepted (its recipient is then chain[1]).
  level_since timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  outcome text CHECK (outcome IN ('directed', 'decided', 'dismissed', 'withdrawn')),
  resolution text,
  decision_id text,
  resolved_by text,
  resolved_at timestamptz,
  -- The level it was answered at: a resolved escalation no longer climbs.
  resolved_level integer,
  raised_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, escalation_id),
  CHECK ((status = 'resolved') = (outcome IS NOT NULL AND resolved_at IS NOT NULL AND resolved_level IS NOT NULL))
);
-- One open escalation per raiser and subject: a second create returns it (and two at once cannot both insert).
CREATE UNIQUE INDEX escalations_open_per_subject ON escalations (org_id, raised_by, subject_id) WHERE status = 'open' AND subject_id IS NOT NULL;
-- escalation.list: newest first; open ones (assignedTo=me computes each one's assignee); by subject.
CREATE INDEX escalations_by_time ON escalations (org_id, raised_at DESC, escalation_id DESC);
CREATE INDEX escalations_open_by_time ON escalations (org_id, raised_at DESC, escalation_id DESC) WHERE status = 'open';
CREATE INDEX escalations_by_subject ON escalations (org_id, subject_id, raised_at DESC, escalation_id DESC) WHERE subject_id IS NOT NULL;

CREATE TABLE handoffs (
  org_id text NOT NULL REFERENCES orgs(org_id),
  handoff_id text NOT NULL,
  subject_kind text NOT NULL CHECK (subject_kind IN ('task', 'decision', 'escalation')),
  subject_id text NOT NULL,
  area text,
  from_principal text NOT NULL,
  to_principal text NOT NULL,
  -- Who held the subject when it was offered: acceptance refuses if it has moved since.
  holder_at_offer text,
  brief text NOT NULL,
  status text NOT NULL DEFAULT 'offered' CHECK (status IN ('offered', 'accepted', 'declined', 'cancelled', 'expired')),
  offered_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  override boolean NOT NULL DEFAULT false,
  approval_id text,
  closed_by text,
  closed_at timestamptz,
  reason text,
  PRIMARY KEY (org_id, handoff_id),
  CHECK (expires_at > offered_at)
);
-- One offer per subject at a time (an expired one is marked by the next offer for its subject, in its transaction).
CREATE UNIQUE INDEX handoffs_one_offered ON handoffs (org_id, subject_kind, subject_id) WHERE status = 'offered';
-- maxOpenHandoffs counts the offerer's open offers; /board.context shows a task's pending one.
CREATE INDEX handoffs_offered_by ON handoffs (org_id, from_principal) WHERE status = 'offered';
CREATE INDEX handoffs_by_subject ON handoffs (org_id, subject_kind, subject_id, offered_at DESC);
