-- tables: ai-gateway: ai_settings, ai_audit_heads, ai_audit
-- The AI gateway's self-audit: one record per books.ask (every model call and every local answer), in a
-- per-org hash chain of its own, beside the ledger and verified like it (ai-gateway/audit.ts).

-- Per-org AI settings an operator sets (npm run cli -- ai-settings): the monthly budget (NULL = the server's
-- AI_MONTHLY_BUDGET_USD) and whether question and answer bodies are kept in the audit (redacted).
CREATE TABLE ai_settings (
  org_id text PRIMARY KEY REFERENCES orgs(org_id),
  monthly_budget_micro_usd bigint CHECK (monthly_budget_micro_usd >= 0),
  store_bodies boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The chain head per org, created with the org's first audit record.
CREATE TABLE ai_audit_heads (
  org_id text PRIMARY KEY REFERENCES orgs(org_id),
  seq bigint NOT NULL DEFAULT 0,
  row_hash text NOT NULL DEFAULT ''
);

-- record is the canonical JSON exactly as hashed; the other columns repeat fields of it for reads and
-- rollups, and verify checks that they agree with it.
CREATE TABLE ai_audit (
  org_id text NOT NULL,
  seq bigint NOT NULL,
  audit_id text NOT NULL,
  at text NOT NULL,
  request_id text NOT NULL,
  actor text NOT NULL,
  provider text NOT NULL,
  model text NOT NULL,
  verdict text NOT NULL,
  cost_micro_usd bigint NOT NULL,
  prompt_tokens bigint NOT NULL,
  completion_tokens bigint NOT NULL,
  record text NOT NULL,
  prev_hash text NOT NULL,
  row_hash text NOT NULL,
  PRIMARY KEY (org_id, seq),
  UNIQUE (org_id, audit_id)
);
CREATE INDEX ai_audit_by_time ON ai_audit (org_id, at);

CREATE FUNCTION ai_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'AI audit records are append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER ai_audit_append_only BEFORE UPDATE OR DELETE ON ai_audit
  FOR EACH ROW EXECUTE FUNCTION ai_audit_append_only();
