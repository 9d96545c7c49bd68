-- tables: books: books_tax_lodgements, books_depreciation_runs, books_depreciation
-- Tax (BAS lodgements) and fixed-asset depreciation.

-- A BAS for one period: DRAFT (returned to the preparer) -> PREPARED (labels snapshotted) -> HELD (lodging
-- blocked) or LODGED (signed; the period is locked through period_end). labels is the snapshot a human signs:
-- {"G1","G2","G3","G10","G11","1A","1B","W1","W2"} in cents; net_cents = 1A + W2 - 1B.
CREATE TABLE books_tax_lodgements (
  org_id text NOT NULL REFERENCES orgs(org_id),
  lodgement_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  period_start date NOT NULL,
  period_end date NOT NULL,
  status text NOT NULL CHECK (status IN ('DRAFT', 'PREPARED', 'HELD', 'LODGED')),
  labels jsonb NOT NULL,
  net_cents bigint NOT NULL,
  prepared_by text NOT NULL,
  prepared_at timestamptz NOT NULL DEFAULT now(),
  hold_reason text,
  held_by text,
  held_at timestamptz,
  return_reason text,
  returned_by text,
  returned_at timestamptz,
  lodged_by text,
  lodged_at timestamptz,
  approval_id text,
  -- The clearing journal (Dr 820, Dr 825 / Cr 830); null when every line was zero.
  journal_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, lodgement_id),
  -- One lodgement per period: a returned one is re-prepared in place.
  UNIQUE (org_id, period_start, period_end),
  CHECK (period_end >= period_start),
  CHECK ((status = 'LODGED') = (lodged_at IS NOT NULL))
);

-- Each call of books.assetDepreciationRun that depreciated something, and each disposal's depreciation to date.
CREATE TABLE books_depreciation_runs (
  org_id text NOT NULL REFERENCES orgs(org_id),
  run_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  kind text NOT NULL CHECK (kind IN ('RUN', 'DISPOSAL')),
  period_end date NOT NULL,
  journal_id text NOT NULL,
  total_cents bigint NOT NULL CHECK (total_cents >= 0),
  asset_count int NOT NULL CHECK (asset_count >= 0),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, run_id)
);

-- Depreciation of one asset from from_date to period_end inclusive. One row per asset per period, so a
-- period is never depreciated twice; accumulated depreciation = the sum of an asset's rows.
CREATE TABLE books_depreciation (
  org_id text NOT NULL REFERENCES orgs(org_id),
  asset_id text NOT NULL,
  period_end date NOT NULL,
  from_date date NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  run_id text NOT NULL,
  journal_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, asset_id, period_end),
  FOREIGN KEY (org_id, asset_id) REFERENCES books_assets (org_id, asset_id),
  FOREIGN KEY (org_id, run_id) REFERENCES books_depreciation_runs (org_id, run_id),
  CHECK (from_date <= period_end)
);
