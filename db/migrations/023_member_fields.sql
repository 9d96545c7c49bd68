-- People, the rest of the member record (people.md section 2), in one migration every people area builds on.
-- role: a human's tier ceiling (admin, approver, member, viewer): no key of theirs may exceed it. Agents have
-- none (their keys are their mandate). Existing humans get the highest tier among their live keys.
ALTER TABLE principals
  ADD COLUMN role text CHECK (role IN ('admin', 'approver', 'member', 'viewer')),
  ADD COLUMN sponsor_id text,
  ADD COLUMN position integer CHECK (position >= 0),
  ADD COLUMN dotted_line_ids text[] NOT NULL DEFAULT '{}' CHECK (cardinality(dotted_line_ids) <= 3),
  ADD COLUMN office text,
  ADD COLUMN employee_id text,
  ADD COLUMN external_id text,
  ADD CONSTRAINT principals_role_kind CHECK (kind = 'human' OR role IS NULL),
  ADD CONSTRAINT principals_sponsor_fk FOREIGN KEY (org_id, sponsor_id) REFERENCES principals (org_id, principal_id);

UPDATE principals p SET role = CASE
    WHEN EXISTS (SELECT 1 FROM api_keys k WHERE k.org_id = p.org_id AND k.principal_id = p.principal_id AND k.revoked_at IS NULL
                   AND (k.tier = 'admin' OR 'admin' = ANY (k.scopes))) THEN 'admin'
    WHEN EXISTS (SELECT 1 FROM api_keys k WHERE k.org_id = p.org_id AND k.principal_id = p.principal_id AND k.revoked_at IS NULL
                   AND (k.tier = 'approver' OR 'approval.decide' = ANY (k.scopes))) THEN 'approver'
    ELSE 'member' END
 WHERE p.kind = 'human';

-- An identity provider's id for the member (SCIM externalId) and the HR number are unique in the org.
CREATE UNIQUE INDEX principals_external_id ON principals (org_id, external_id) WHERE external_id IS NOT NULL;
CREATE UNIQUE INDEX principals_employee_id ON principals (org_id, employee_id) WHERE employee_id IS NOT NULL;
CREATE INDEX principals_sponsor ON principals (org_id, sponsor_id) WHERE sponsor_id IS NOT NULL;
