-- Open offers by recipient: GET /api/v1/org/inbox asks for the offers made to the caller on every read.
CREATE INDEX handoffs_offered_to ON handoffs (org_id, to_principal) WHERE status = 'offered';
