-- tables: books: books_bills, books_bill_lines, books_payment_runs
-- Payables: supplier bills, their lines, and signed payment runs.

-- Status and payment are separate: amount due = total - paid; PAID exactly when paid = total.
-- Control account: 800 balance = -sum(total_cents - paid_cents) over AUTHORISED bills.
CREATE TABLE books_bills (
  org_id text NOT NULL REFERENCES orgs(org_id),
  bill_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  contact_id text NOT NULL,
  -- The supplier's invoice number as given, and lower-cased/whitespace-collapsed for the duplicate check.
  reference text NOT NULL,
  reference_key text NOT NULL,
  issue_date date NOT NULL,
  due_date date NOT NULL,
  abn text,
  total_cents bigint NOT NULL CHECK (total_cents > 0),
  gst_cents bigint NOT NULL CHECK (gst_cents >= 0),
  paid_cents bigint NOT NULL DEFAULT 0,
  status text NOT NULL CHECK (status IN ('DRAFT', 'AUTHORISED', 'PAID', 'VOIDED', 'DELETED')),
  -- Bank details printed on the bill; they become the contact's approved details only through a signed approval.
  bank_bsb text,
  bank_account text,
  bank_account_name text,
  -- Payee flags from capture, and the one that makes approval a signature act (rule PB-B1).
  flags text[] NOT NULL DEFAULT '{}' CHECK (flags <@ ARRAY['ABOVE FLOOR', 'NEW PAYEE']::text[]),
  held_reason text CHECK (held_reason IN ('ABOVE FLOOR', 'NEW PAYEE')),
  -- billHold: excluded from payment runs until released.
  on_hold boolean NOT NULL DEFAULT false,
  hold_reason text,
  held_at timestamptz,
  held_by text,
  approval_id text,
  approved_by text,
  approved_at timestamptz,
  journal_id text,
  run_id text,
  return_reason text,
  returned_at timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, bill_id),
  FOREIGN KEY (org_id, contact_id) REFERENCES books_contacts (org_id, contact_id),
  CHECK (due_date >= issue_date),
  CHECK (paid_cents >= 0 AND paid_cents <= total_cents),
  CHECK ((status = 'PAID') = (status IN ('AUTHORISED', 'PAID') AND paid_cents = total_cents)),
  CHECK (on_hold = (hold_reason IS NOT NULL)),
  CHECK ((status IN ('AUTHORISED', 'PAID', 'VOIDED')) = (journal_id IS NOT NULL))
);
CREATE INDEX books_bills_by_contact ON books_bills (org_id, contact_id);
-- Backstop of the duplicate check (the check itself runs under the supplier's row lock).
CREATE UNIQUE INDEX books_bills_no_duplicate ON books_bills (org_id, contact_id, reference_key, total_cents)
  WHERE status NOT IN ('DELETED', 'VOIDED');

-- amount_cents is GST-inclusive; gst_cents = round(amount / 11) for tax_code GST, else 0.
CREATE TABLE books_bill_lines (
  org_id text NOT NULL,
  bill_id text NOT NULL,
  line_no int NOT NULL CHECK (line_no BETWEEN 1 AND 50),
  description text NOT NULL,
  account_code text NOT NULL,
  tax_code text NOT NULL CHECK (tax_code IN ('GST', 'GST_FREE', 'INPUT_TAXED', 'BAS_EXCLUDED')),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  gst_cents bigint NOT NULL CHECK (gst_cents >= 0 AND gst_cents < amount_cents),
  -- The fixed asset registered from a 710/720 line on approval.
  asset_id text,
  PRIMARY KEY (org_id, bill_id, line_no),
  FOREIGN KEY (org_id, bill_id) REFERENCES books_bills (org_id, bill_id)
);

-- An executed payment run. The id is derived from pay date + sorted bill ids, so a retry names the same run.
CREATE TABLE books_payment_runs (
  org_id text NOT NULL REFERENCES orgs(org_id),
  run_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  pay_date date NOT NULL,
  bill_ids text[] NOT NULL CHECK (cardinality(bill_ids) BETWEEN 1 AND 100),
  total_cents bigint NOT NULL CHECK (total_cents > 0),
  approval_id text NOT NULL,
  -- The bank line the run was reconciled to (one line pays the whole run).
  feed_line_id text,
  reconciled_at timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, run_id),
  UNIQUE (org_id, feed_line_id)
);

CREATE INDEX books_payments_by_run ON books_payments (org_id, payment_run_id) WHERE payment_run_id IS NOT NULL;
