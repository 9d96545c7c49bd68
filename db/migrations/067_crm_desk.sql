-- The deal desk (docs/families/crm.md, The deal desk). An escalation remembers the payloadHash of the signature hold
-- it opened with (crm.signEscalation's, recorded as the escalation opens), so listEscalations can say where the
-- approval filed for it stands without the caller keeping the hash.
ALTER TABLE crm_escalations ADD COLUMN payload_hash text;
-- listEscalations of one deal, oldest first.
CREATE INDEX crm_escalations_deal_opened ON crm_escalations (org_id, deal_id, opened_at, escalation_id);
