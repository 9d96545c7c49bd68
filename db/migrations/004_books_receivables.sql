-- tables: books: books_invoices, books_credit_notes, books_promises, books_chases, books_statement_runs
-- Receivables: invoices, credit notes, promises to pay, dunning steps, statement runs.

-- Status and payment are separate: amount due = total - paid - credited; PAID exactly when that is 0.
CREATE TABLE books_invoices (
  org_id text NOT NULL REFERENCES orgs(org_id),
  invoice_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  number text,
  contact_id text NOT NULL,
  description text NOT NULL,
  total_cents bigint NOT NULL CHECK (total_cents > 0),
  gst_cents bigint NOT NULL,
  due_days int NOT NULL CHECK (due_days >= 0),
  status text NOT NULL CHECK (status IN ('DRAFT', 'AUTHORISED', 'PAID', 'VOIDED', 'DELETED')),
  issue_date date,
  due_date date,
  paid_cents bigint NOT NULL DEFAULT 0,
  credited_cents bigint NOT NULL DEFAULT 0,
  chase_step int NOT NULL DEFAULT 0 CHECK (chase_step BETWEEN 0 AND 3),
  chased_at timestamptz,
  journal_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, invoice_id),
  UNIQUE (org_id, number),
  FOREIGN KEY (org_id, contact_id) REFERENCES books_contacts (org_id, contact_id),
  CHECK (paid_cents >= 0 AND credited_cents >= 0 AND paid_cents + credited_cents <= total_cents),
  CHECK ((status = 'PAID') = (status IN ('AUTHORISED', 'PAID') AND paid_cents + credited_cents = total_cents))
);
CREATE INDEX books_invoices_by_contact ON books_invoices (org_id, contact_id);

CREATE TABLE books_credit_notes (
  org_id text NOT NULL REFERENCES orgs(org_id),
  credit_note_id text NOT NULL,
  number text NOT NULL,
  invoice_id text NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  gst_cents bigint NOT NULL,
  reason text NOT NULL,
  date date NOT NULL,
  journal_id text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, credit_note_id),
  FOREIGN KEY (org_id, invoice_id) REFERENCES books_invoices (org_id, invoice_id)
);

-- OPEN until kept or replaced by a newer promise; BROKEN is derived (promised date + grace passed, unpaid).
CREATE TABLE books_promises (
  org_id text NOT NULL REFERENCES orgs(org_id),
  promise_id text NOT NULL,
  invoice_id text NOT NULL,
  promised_date date NOT NULL,
  amount_cents bigint CHECK (amount_cents > 0),
  -- What had been paid when the promise was made: it is kept once payments since reach the amount.
  paid_at_promise_cents bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('OPEN', 'KEPT', 'REPLACED')),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  closed_at timestamptz,
  PRIMARY KEY (org_id, promise_id),
  FOREIGN KEY (org_id, invoice_id) REFERENCES books_invoices (org_id, invoice_id)
);
CREATE UNIQUE INDEX books_promises_one_open ON books_promises (org_id, invoice_id) WHERE status = 'OPEN';

CREATE TABLE books_chases (
  org_id text NOT NULL REFERENCES orgs(org_id),
  chase_id text NOT NULL,
  invoice_id text NOT NULL,
  step int NOT NULL CHECK (step BETWEEN 1 AND 3),
  approval_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, chase_id),
  UNIQUE (org_id, invoice_id, step),
  FOREIGN KEY (org_id, invoice_id) REFERENCES books_invoices (org_id, invoice_id)
);

CREATE TABLE books_statement_runs (
  org_id text NOT NULL REFERENCES orgs(org_id),
  run_id text NOT NULL,
  as_of date NOT NULL,
  contact_id text,
  statements jsonb NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, run_id)
);
