-- tables: books: books_bank_imports, books_feed_lines, books_receipts
-- Reconciliation: bank statement imports, the bank feed lines they bring, and purchase receipts.
-- Feed lines arrive only from the bank (a statement import); matching and coding them is books.matchAccept.

CREATE TABLE books_bank_imports (
  org_id text NOT NULL REFERENCES orgs(org_id),
  import_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  format text NOT NULL CHECK (format IN ('csv', 'ofx')),
  file_name text,
  -- Transactions in the file, how many were new, how many the org already had (same bank_txn_id).
  lines int NOT NULL CHECK (lines >= 0),
  imported int NOT NULL CHECK (imported >= 0),
  duplicates int NOT NULL CHECK (duplicates >= 0),
  imported_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, import_id),
  CHECK (imported + duplicates = lines)
);

CREATE TABLE books_feed_lines (
  org_id text NOT NULL REFERENCES orgs(org_id),
  line_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  -- The bank's id: FITID (OFX), the id column (CSV), else sha256 of date|amount|description|occurrence in the file.
  bank_txn_id text NOT NULL,
  date date NOT NULL,
  -- Money in positive, money out negative.
  amount_cents bigint NOT NULL CHECK (amount_cents <> 0),
  description text NOT NULL,
  payee text,
  reference text,
  status text NOT NULL DEFAULT 'UNMATCHED' CHECK (status IN ('UNMATCHED', 'HELD', 'RECONCILED')),
  -- The match (HELD: the intended one, nothing posted yet): a document, or 'account' for direct coding.
  target_kind text CHECK (target_kind IN ('invoice', 'bill', 'claim', 'payRun', 'paymentRun', 'account')),
  target_id text,
  -- Direct coding only: the account and tax code of the other side of the bank line.
  account_code text,
  tax_code text CHECK (tax_code IN ('GST', 'GST_FREE', 'INPUT_TAXED', 'BAS_EXCLUDED')),
  -- The journal that posted the line when it was reconciled (none for a payment run: the run posted).
  journal_id text,
  held_at timestamptz,
  held_by text,
  -- The approval that released a hold above the floor.
  approval_id text,
  reconciled_at timestamptz,
  reconciled_by text,
  import_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, line_id),
  UNIQUE (org_id, bank_txn_id),
  FOREIGN KEY (org_id, import_id) REFERENCES books_bank_imports (org_id, import_id),
  CHECK ((status = 'UNMATCHED') = (target_kind IS NULL)),
  CHECK ((target_kind = 'account') = (account_code IS NOT NULL AND tax_code IS NOT NULL)),
  CHECK (target_kind IS NULL OR target_kind = 'account' OR target_id IS NOT NULL),
  -- held_at stays after a release (the audit of when the hold began); a rejected hold clears it.
  CHECK (status <> 'HELD' OR held_at IS NOT NULL)
);
CREATE INDEX books_feed_lines_by_status ON books_feed_lines (org_id, status, n);
CREATE INDEX books_feed_lines_by_target ON books_feed_lines (org_id, target_kind, target_id);

-- Purchase receipts (the stored file is referenced, not kept here). No journal: the purchase posts elsewhere.
CREATE TABLE books_receipts (
  org_id text NOT NULL REFERENCES orgs(org_id),
  receipt_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  supplier text NOT NULL,
  abn text,
  date date NOT NULL,
  total_cents bigint NOT NULL CHECK (total_cents > 0),
  gst_cents bigint NOT NULL CHECK (gst_cents >= 0),
  file_ref text NOT NULL,
  tax_invoice boolean NOT NULL,
  -- 'NO TAX INVOICE': above the threshold without a valid tax invoice, so no GST credit may be claimed.
  flags text[] NOT NULL DEFAULT '{}',
  link_kind text CHECK (link_kind IN ('line', 'bill', 'claim')),
  link_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, receipt_id),
  CHECK ((link_kind IS NULL) = (link_id IS NULL))
);
CREATE INDEX books_receipts_by_link ON books_receipts (org_id, link_kind, link_id);
