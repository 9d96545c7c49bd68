-- tables: crm: crm_settings, crm_accounts, crm_contacts, crm_deals, crm_deal_history, crm_deal_contacts, crm_interactions, crm_interaction_links
-- tables: crm: crm_terms, crm_escalations, crm_rooms, crm_guest_tokens, crm_share_views, crm_call_guests, crm_playbooks, crm_playbook_versions
-- tables: crm: crm_nba_runs, crm_nba_recommendations, crm_targets, crm_deal_files, crm_deal_threads, crm_deal_tasks
-- The sales desk (docs/families/crm.md). Accounts and contacts are roles on directory parties (names, emails and
-- domains live in the directory, never copied here); deals carry money as bigint minor units with an ISO 4217
-- code. Names, next steps, summaries, rationales, clauses and notes live only in these rows, never in the ledger.
-- Every table keys by org_id first (tests/db/tenancy.test.ts).

-- The directory's origin for parties made by a CRM call (createAccount, createContact).
ALTER TABLE directory_parties DROP CONSTRAINT directory_parties_origin_check;
ALTER TABLE directory_parties ADD CONSTRAINT directory_parties_origin_check
  CHECK (origin IN ('manual', 'contact', 'contacts', 'capture', 'import', 'books', 'crm'));
ALTER TABLE directory_channels DROP CONSTRAINT directory_channels_source_check;
ALTER TABLE directory_channels ADD CONSTRAINT directory_channels_source_check
  CHECK (source IN ('manual', 'contact', 'contacts', 'capture', 'import', 'merge', 'crm'));

-- The org's CRM policy (GET /policy under crm; policy.publish sets it). No row: the defaults of domain/crm/policy.ts.
CREATE TABLE crm_settings (
  org_id text NOT NULL REFERENCES orgs(org_id),
  max_discount_bps integer NOT NULL CHECK (max_discount_bps BETWEEN 0 AND 10000),
  max_payment_days integer NOT NULL CHECK (max_payment_days BETWEEN 0 AND 365),
  min_term_months integer NOT NULL CHECK (min_term_months BETWEEN 1 AND 120),
  max_term_months integer NOT NULL CHECK (max_term_months BETWEEN 1 AND 120),
  -- {"AUD": 5000000}: terms whose net is above the currency's figure need a signature; a currency absent: no limit.
  sign_off_net_cents jsonb NOT NULL DEFAULT '{}',
  share_max_days integer NOT NULL CHECK (share_max_days BETWEEN 1 AND 365),
  token_max_days integer NOT NULL CHECK (token_max_days BETWEEN 1 AND 365),
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id),
  CHECK (min_term_months <= max_term_months)
);

-- An account: the sales role of a directory organisation (co_). One live account per organisation; a directory
-- merge of two organisations folds the merged one's account into the survivor's (status merged, merged_into).
CREATE TABLE crm_accounts (
  org_id text NOT NULL REFERENCES orgs(org_id),
  account_id text NOT NULL,
  party_id text NOT NULL,
  owner_id text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived', 'merged')),
  merged_into text,
  version integer NOT NULL DEFAULT 1,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  archived_at timestamptz,
  PRIMARY KEY (org_id, account_id),
  CHECK ((status = 'merged') = (merged_into IS NOT NULL))
);
CREATE UNIQUE INDEX crm_accounts_party ON crm_accounts (org_id, party_id) WHERE status <> 'merged';
CREATE INDEX crm_accounts_owner ON crm_accounts (org_id, owner_id, status, account_id);
CREATE INDEX crm_accounts_listed ON crm_accounts (org_id, status, account_id);

-- A contact: the sales role of a directory person (per_). One live contact per person; deleted contacts stay as
-- tombstones (interactions keep naming them); a merge of two persons folds one contact into the other.
CREATE TABLE crm_contacts (
  org_id text NOT NULL REFERENCES orgs(org_id),
  contact_id text NOT NULL,
  person_id text NOT NULL,
  account_id text,
  title text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted', 'merged')),
  merged_into text,
  version integer NOT NULL DEFAULT 1,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  PRIMARY KEY (org_id, contact_id),
  FOREIGN KEY (org_id, account_id) REFERENCES crm_accounts (org_id, account_id),
  CHECK ((status = 'merged') = (merged_into IS NOT NULL))
);
CREATE UNIQUE INDEX crm_contacts_person ON crm_contacts (org_id, person_id) WHERE status = 'active';
CREATE INDEX crm_contacts_account ON crm_contacts (org_id, account_id, contact_id) WHERE status = 'active';
CREATE INDEX crm_contacts_listed ON crm_contacts (org_id, status, contact_id);

-- A deal on the one pipeline (protocol/methods/crm/shared.ts: stages, probabilities, forecast categories, rot
-- days). status: open, won, lost, deleted; stage is the last stage (won/lost when closed). The owner has the
-- credit; the delegate works it. offer_terms_id: the terms in force (trm_, offered or accepted).
CREATE TABLE crm_deals (
  org_id text NOT NULL REFERENCES orgs(org_id),
  deal_id text NOT NULL,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  account_id text NOT NULL,
  owner_id text NOT NULL,
  delegate_id text,
  stage text NOT NULL CHECK (stage IN ('lead', 'qualified', 'proposal', 'negotiation', 'contract', 'won', 'lost')),
  status text NOT NULL CHECK (status IN ('open', 'won', 'lost', 'deleted')),
  amount_cents bigint NOT NULL CHECK (amount_cents >= 0),
  currency char(3) NOT NULL,
  close_date date NOT NULL,
  -- null: the stage's category (pipeline, best_case, commit, closed, omitted).
  forecast_category text CHECK (forecast_category IN ('pipeline', 'best_case', 'commit', 'closed', 'omitted')),
  next_step text,
  offer_terms_id text,
  lost_reason text,
  closed_on date,
  close_date_pushes integer NOT NULL DEFAULT 0,
  stage_entered_at timestamptz NOT NULL,
  last_activity_at timestamptz NOT NULL,
  version integer NOT NULL DEFAULT 1,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  PRIMARY KEY (org_id, deal_id),
  FOREIGN KEY (org_id, account_id) REFERENCES crm_accounts (org_id, account_id),
  CHECK ((status IN ('won', 'lost')) = (closed_on IS NOT NULL) OR status = 'deleted'),
  CHECK (status <> 'lost' OR lost_reason IS NOT NULL)
);
-- listDeals pages by (close_date, deal_id) within its filters (100k deals per org: < 50 ms).
CREATE INDEX crm_deals_listed ON crm_deals (org_id, close_date, deal_id) WHERE status <> 'deleted';
CREATE INDEX crm_deals_status ON crm_deals (org_id, status, stage, close_date, deal_id);
CREATE INDEX crm_deals_owner ON crm_deals (org_id, owner_id, status, close_date, deal_id);
CREATE INDEX crm_deals_account ON crm_deals (org_id, account_id, status, close_date, deal_id);
CREATE INDEX crm_deals_delegate ON crm_deals (org_id, delegate_id) WHERE delegate_id IS NOT NULL;
-- getTargets: closed-won by owner and date.
CREATE INDEX crm_deals_won ON crm_deals (org_id, owner_id, closed_on) WHERE status = 'won';
SELECT wops_search_indexes('crm_deals', ARRAY['name'], ARRAY[]::text[], ARRAY[]::text[], ARRAY['name']);

-- A row per change of stage, amount or close date (dsh_): who, when, and the values after the change.
CREATE TABLE crm_deal_history (
  org_id text NOT NULL REFERENCES orgs(org_id),
  history_id text NOT NULL,
  deal_id text NOT NULL,
  n integer NOT NULL,
  stage text NOT NULL,
  amount_cents bigint NOT NULL,
  currency char(3) NOT NULL,
  close_date date NOT NULL,
  forecast_category text,
  -- Which of stage, amount, closeDate changed (created: all three); push: a later close date.
  changed text[] NOT NULL,
  push boolean NOT NULL DEFAULT false,
  by_id text NOT NULL,
  at timestamptz NOT NULL,
  PRIMARY KEY (org_id, history_id),
  UNIQUE (org_id, deal_id, n),
  FOREIGN KEY (org_id, deal_id) REFERENCES crm_deals (org_id, deal_id)
);

-- Labelled deal-contact links (champion, economic_buyer, ...). A surrogate key, so a merge moves a link to the
-- survivor's contact as an update the directory's change log can revert.
CREATE TABLE crm_deal_contacts (
  org_id text NOT NULL REFERENCES orgs(org_id),
  link_id text NOT NULL,
  deal_id text NOT NULL,
  contact_id text NOT NULL,
  role text NOT NULL CHECK (role IN ('champion', 'economic_buyer', 'decision_maker', 'technical', 'legal', 'procurement', 'user')),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, link_id),
  UNIQUE (org_id, deal_id, contact_id, role),
  FOREIGN KEY (org_id, deal_id) REFERENCES crm_deals (org_id, deal_id),
  FOREIGN KEY (org_id, contact_id) REFERENCES crm_contacts (org_id, contact_id)
);
CREATE INDEX crm_deal_contacts_contact ON crm_deal_contacts (org_id, contact_id);

-- The timeline (ixn_): emails, calls, meetings, notes and decisions. A redacted summary reads "[redacted]" for good.
CREATE TABLE crm_interactions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  interaction_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('email', 'call', 'meeting', 'note', 'task', 'decision', 'other')),
  -- inbound (the buyer reached us), outbound, internal: what the ghosted flag reads.
  direction text NOT NULL DEFAULT 'internal' CHECK (direction IN ('inbound', 'outbound', 'internal')),
  occurred_at timestamptz NOT NULL,
  summary text NOT NULL,
  thread_id text,
  call_id text,
  -- logDealDecision: the decision and who made it (the rationale is the summary).
  decision text,
  decided_by text,
  pinned boolean NOT NULL DEFAULT false,
  pinned_at timestamptz,
  status text NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'redacted')),
  redacted_reason text,
  redacted_by text,
  redacted_at timestamptz,
  created_by text NOT NULL,
  recorded_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, interaction_id)
);
CREATE INDEX crm_interactions_occurred ON crm_interactions (org_id, occurred_at DESC, interaction_id);
CREATE INDEX crm_interactions_thread ON crm_interactions (org_id, thread_id) WHERE thread_id IS NOT NULL;
SELECT wops_search_indexes('crm_interactions', ARRAY['summary'], ARRAY[]::text[], ARRAY[]::text[], ARRAY[]::text[]);

-- What an interaction is about: deals, accounts and contacts (deal_, acct_, ctc_).
CREATE TABLE crm_interaction_links (
  org_id text NOT NULL REFERENCES orgs(org_id),
  interaction_id text NOT NULL,
  target_id text NOT NULL,
  target_kind text NOT NULL CHECK (target_kind IN ('deal', 'account', 'contact')),
  occurred_at timestamptz NOT NULL,
  pinned boolean NOT NULL DEFAULT false,
  PRIMARY KEY (org_id, interaction_id, target_id),
  FOREIGN KEY (org_id, interaction_id) REFERENCES crm_interactions (org_id, interaction_id)
);
-- listInteractions: pinned first, then newest, per target (10M interactions per org).
CREATE INDEX crm_interaction_links_target ON crm_interaction_links (org_id, target_id, pinned DESC, occurred_at DESC, interaction_id);

-- Terms (trm_): a deal's proposed commercial terms, versioned; one offered or held at a time per deal.
CREATE TABLE crm_terms (
  org_id text NOT NULL REFERENCES orgs(org_id),
  terms_id text NOT NULL,
  deal_id text NOT NULL,
  version integer NOT NULL,
  status text NOT NULL CHECK (status IN ('offered', 'held', 'returned', 'superseded', 'accepted')),
  list_cents bigint NOT NULL CHECK (list_cents >= 0),
  discount_bps integer NOT NULL CHECK (discount_bps BETWEEN 0 AND 10000),
  -- list less the discount, rounded half away from zero (as the books round).
  net_cents bigint NOT NULL CHECK (net_cents >= 0),
  currency char(3) NOT NULL,
  payment_days integer NOT NULL CHECK (payment_days >= 0),
  term_months integer NOT NULL CHECK (term_months >= 1),
  -- [{code, text?}]: standard clauses by code; a non-standard clause carries its text.
  clauses jsonb NOT NULL DEFAULT '[]',
  rationale text,
  -- Policy codes the terms break (discount, payment_days, term_months, clause, net), empty when in policy.
  breaches text[] NOT NULL DEFAULT '{}',
  escalation_id text,
  proposed_by text NOT NULL,
  proposed_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, terms_id),
  UNIQUE (org_id, deal_id, version),
  FOREIGN KEY (org_id, deal_id) REFERENCES crm_deals (org_id, deal_id)
);
CREATE UNIQUE INDEX crm_terms_current ON crm_terms (org_id, deal_id) WHERE status IN ('offered', 'held', 'returned');

-- The deal desk (desk_): terms beyond policy, or a next step an agent stopped itself at, waiting for a signature.
CREATE TABLE crm_escalations (
  org_id text NOT NULL REFERENCES orgs(org_id),
  escalation_id text NOT NULL,
  deal_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('terms', 'next_step')),
  terms_id text,
  -- The version signed: terms' version, or 1 for a step.
  version integer NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'signed', 'returned', 'withdrawn')),
  breaches text[] NOT NULL DEFAULT '{}',
  -- The approval the hold filed for (pre-recorded as signEscalation's hold), and the one that signed.
  approval_id text,
  step_kind text CHECK (step_kind IN ('send_contract', 'executive_contact', 'free_pilot', 'custom')),
  step_title text,
  step_reason text,
  note text,
  opened_by text NOT NULL,
  opened_at timestamptz NOT NULL,
  resolved_by text,
  resolved_at timestamptz,
  PRIMARY KEY (org_id, escalation_id),
  FOREIGN KEY (org_id, deal_id) REFERENCES crm_deals (org_id, deal_id),
  CHECK ((kind = 'terms') = (terms_id IS NOT NULL)),
  CHECK ((kind = 'next_step') = (step_kind IS NOT NULL))
);
CREATE INDEX crm_escalations_open ON crm_escalations (org_id, status, opened_at, escalation_id);
CREATE INDEX crm_escalations_deal ON crm_escalations (org_id, deal_id, status);
CREATE UNIQUE INDEX crm_escalations_open_terms ON crm_escalations (org_id, deal_id) WHERE status = 'open' AND kind = 'terms';

-- A buyer deal room (room_): what it shows, whether files download, until when.
CREATE TABLE crm_rooms (
  org_id text NOT NULL REFERENCES orgs(org_id),
  room_id text NOT NULL,
  deal_id text NOT NULL,
  -- {offer: bool, nextSteps: bool, fileIds: [fil_…], contacts: bool}
  show jsonb NOT NULL,
  allow_download boolean NOT NULL DEFAULT false,
  expires_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  revoked_by text,
  revoked_at timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, room_id),
  FOREIGN KEY (org_id, deal_id) REFERENCES crm_deals (org_id, deal_id)
);
CREATE INDEX crm_rooms_deal ON crm_rooms (org_id, deal_id, status);

-- A guest token (gtk_) for one person to one room: only the SHA-256 of the token is kept (it is shown once, and
-- names its org as /join's and share tokens do, so the lookup stays within the org).
CREATE TABLE crm_guest_tokens (
  org_id text NOT NULL REFERENCES orgs(org_id),
  token_id text NOT NULL,
  room_id text NOT NULL,
  person_id text NOT NULL,
  capabilities text[] NOT NULL,
  expires_at timestamptz NOT NULL,
  token_hash text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  revoked_by text,
  revoked_at timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, token_id),
  FOREIGN KEY (org_id, room_id) REFERENCES crm_rooms (org_id, room_id)
);
CREATE UNIQUE INDEX crm_guest_tokens_hash ON crm_guest_tokens (org_id, token_hash);
CREATE INDEX crm_guest_tokens_room ON crm_guest_tokens (org_id, room_id);
CREATE INDEX crm_guest_tokens_person ON crm_guest_tokens (org_id, person_id);

-- What guests looked at (no ledger event: the room's own audit). Kept after a revoke.
CREATE TABLE crm_share_views (
  org_id text NOT NULL REFERENCES orgs(org_id),
  view_id text NOT NULL,
  room_id text NOT NULL,
  token_id text NOT NULL,
  what text NOT NULL CHECK (what IN ('view', 'file', 'ics')),
  file_id text,
  viewed_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, view_id)
);
CREATE INDEX crm_share_views_room ON crm_share_views (org_id, room_id, viewed_at DESC);

-- addCallGuest: a live token with join_calls admitted to one call.
CREATE TABLE crm_call_guests (
  org_id text NOT NULL REFERENCES orgs(org_id),
  call_id text NOT NULL,
  token_id text NOT NULL,
  added_by text NOT NULL,
  added_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, call_id, token_id)
);
CREATE INDEX crm_call_guests_token ON crm_call_guests (org_id, token_id);

-- Playbooks (pbk_): rules compiled to deterministic next-best-action; every saved version kept.
CREATE TABLE crm_playbooks (
  org_id text NOT NULL REFERENCES orgs(org_id),
  playbook_id text NOT NULL,
  name text NOT NULL,
  version integer NOT NULL,
  enabled boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
  definition jsonb NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, playbook_id)
);
CREATE TABLE crm_playbook_versions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  playbook_id text NOT NULL,
  version integer NOT NULL,
  definition jsonb NOT NULL,
  saved_by text NOT NULL,
  saved_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, playbook_id, version),
  FOREIGN KEY (org_id, playbook_id) REFERENCES crm_playbooks (org_id, playbook_id)
);

-- A next-best-action run (nba_) and its ranked recommendations (nbr_): recorded, never acted on.
CREATE TABLE crm_nba_runs (
  org_id text NOT NULL REFERENCES orgs(org_id),
  run_id text NOT NULL,
  deal_id text,
  owner_id text,
  as_of timestamptz NOT NULL,
  count integer NOT NULL,
  run_by text NOT NULL,
  run_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, run_id)
);
CREATE TABLE crm_nba_recommendations (
  org_id text NOT NULL REFERENCES orgs(org_id),
  recommendation_id text NOT NULL,
  run_id text NOT NULL,
  deal_id text NOT NULL,
  rank integer NOT NULL,
  priority integer NOT NULL,
  -- null for a built-in risk rule.
  playbook_id text,
  playbook_version integer,
  rule_id text NOT NULL,
  action text NOT NULL CHECK (action IN ('suggest', 'task', 'holdNextStep', 'flagRisk')),
  flags text[] NOT NULL DEFAULT '{}',
  -- {method, params}: the call that would follow it.
  suggested_call jsonb,
  task_id text,
  PRIMARY KEY (org_id, recommendation_id),
  FOREIGN KEY (org_id, run_id) REFERENCES crm_nba_runs (org_id, run_id)
);
CREATE INDEX crm_nba_recommendations_run ON crm_nba_recommendations (org_id, run_id, rank);
CREATE INDEX crm_nba_recommendations_deal ON crm_nba_recommendations (org_id, deal_id);

-- Quotas (tgt_): per owner (a principal) or the org ('org'), period (2025, 2025-Q3, 2025-07) and currency.
CREATE TABLE crm_targets (
  org_id text NOT NULL REFERENCES orgs(org_id),
  target_id text NOT NULL,
  owner_key text NOT NULL,
  period text NOT NULL CHECK (period ~ '^[0-9]{4}(-Q[1-4]|-(0[1-9]|1[0-2]))?$'),
  currency char(3) NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents >= 0),
  version integer NOT NULL DEFAULT 1,
  set_by text NOT NULL,
  set_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, target_id),
  UNIQUE (org_id, owner_key, period, currency)
);
CREATE INDEX crm_targets_period ON crm_targets (org_id, period, owner_key);

-- Files shared with a deal (linkFiles) and email threads linked to deals, accounts or contacts (linkEmail).
CREATE TABLE crm_deal_files (
  org_id text NOT NULL REFERENCES orgs(org_id),
  deal_id text NOT NULL,
  file_id text NOT NULL,
  linked_by text NOT NULL,
  linked_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, deal_id, file_id),
  FOREIGN KEY (org_id, deal_id) REFERENCES crm_deals (org_id, deal_id)
);
CREATE TABLE crm_deal_threads (
  org_id text NOT NULL REFERENCES orgs(org_id),
  thread_id text NOT NULL,
  target_id text NOT NULL,
  linked_by text NOT NULL,
  linked_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, thread_id, target_id)
);
CREATE INDEX crm_deal_threads_target ON crm_deal_threads (org_id, target_id);

-- Board tasks made for a deal (taskFollowThrough), with the recommendation followed if any.
CREATE TABLE crm_deal_tasks (
  org_id text NOT NULL REFERENCES orgs(org_id),
  deal_id text NOT NULL,
  task_id text NOT NULL,
  recommendation_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, deal_id, task_id),
  FOREIGN KEY (org_id, deal_id) REFERENCES crm_deals (org_id, deal_id)
);
