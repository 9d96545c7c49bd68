-- Access (people.md: user, admin): why and by whom a member's access last changed. The reason is free text an
-- admin writes, so it stays on the member row (erasable with the member), never in the ledger, whose events of
-- suspension, reactivation and offboarding carry only ids, statuses and counts.
ALTER TABLE principals
  ADD COLUMN status_reason text,
  ADD COLUMN status_changed_at timestamptz,
  ADD COLUMN status_changed_by text;

-- Offboarding moves a leaver's sponsored agents, and the last-admin guard counts active admins: both by index.
CREATE INDEX principals_admins ON principals (org_id) WHERE role = 'admin' AND status = 'active';

-- What deactivation hands over is found by the leaver's id: keys, claims, assigned items, owned workstreams.
CREATE INDEX api_keys_principal ON api_keys (org_id, principal_id);
CREATE INDEX board_tasks_by_assignee ON board_tasks (org_id, assignee) WHERE assignee IS NOT NULL;
CREATE INDEX board_tasks_by_claimer ON board_tasks (org_id, claimed_by) WHERE claimed_by IS NOT NULL;
CREATE INDEX board_workstreams_by_owner ON board_workstreams (org_id, owner) WHERE owner IS NOT NULL;
