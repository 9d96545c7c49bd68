-- tables: books: books_assets
-- The fixed asset register. Assets arrive from purchases coded to a fixed asset cost account (710, 720):
-- an approved bill line or a bank line coded directly; the demo seed registers one too.
CREATE TABLE books_assets (
  org_id text NOT NULL REFERENCES orgs(org_id),
  asset_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  name text NOT NULL,
  cost_account text NOT NULL CHECK (cost_account IN ('710', '720')),
  accumulated_account text NOT NULL CHECK (accumulated_account IN ('711', '721')),
  -- GST-exclusive cost (the amount debited to the cost account).
  cost_cents bigint NOT NULL CHECK (cost_cents > 0),
  residual_cents bigint NOT NULL DEFAULT 0 CHECK (residual_cents >= 0),
  purchase_date date NOT NULL,
  life_years int NOT NULL CHECK (life_years BETWEEN 1 AND 100),
  method text NOT NULL CHECK (method IN ('STRAIGHT_LINE', 'DIMINISHING_VALUE')),
  status text NOT NULL CHECK (status IN ('REGISTERED', 'DISPOSED')),
  source_kind text NOT NULL,
  source_id text NOT NULL,
  disposed_date date,
  -- GST-inclusive sale price, and the gain (net proceeds less book value; negative for a loss).
  proceeds_cents bigint,
  disposal_gain_cents bigint,
  disposal_journal_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, asset_id),
  CHECK (residual_cents < cost_cents)
);
