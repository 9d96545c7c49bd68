-- tables: books: books_employees, books_onboardings, books_pay_runs, books_payslips, books_stp_events, books_leave
-- tables: books: books_expense_claims
-- Payroll and people (employees, onboardings, pay runs and payslips, STP events, leave) and expense claims.
-- Control checks: 804 Wages payable = -sum(net_cents - paid_cents) over POSTED runs; 801 Unpaid expense claims
-- = -sum(total_cents - paid_cents) over AUTHORISED claims. A TFN and bank account numbers live only here:
-- never in events, masked in every read.

CREATE TABLE books_employees (
  org_id text NOT NULL REFERENCES orgs(org_id),
  employee_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  name text NOT NULL,
  email text,
  role text NOT NULL,
  start_date date NOT NULL,
  -- PENDING until every onboarding step is done; only ACTIVE staff are paid.
  status text NOT NULL CHECK (status IN ('PENDING', 'ACTIVE')),
  pay_basis text NOT NULL CHECK (pay_basis IN ('ANNUAL', 'HOURLY')),
  -- A year's salary (ANNUAL) or an hour's wage (HOURLY).
  rate_cents bigint NOT NULL CHECK (rate_cents > 0),
  hours_per_week int NOT NULL CHECK (hours_per_week BETWEEN 1 AND 60),
  tfn text CHECK (tfn ~ '^[0-9]{9}$'),
  claims_tax_free_threshold boolean,
  super_fund_name text,
  super_usi text,
  super_member_number text,
  bank_bsb text,
  bank_account text,
  bank_account_name text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, employee_id),
  CHECK (status = 'PENDING' OR (tfn IS NOT NULL AND claims_tax_free_threshold IS NOT NULL AND super_usi IS NOT NULL AND bank_account IS NOT NULL))
);

-- One onboarding per employee; a step is done when its *_done_at is set.
CREATE TABLE books_onboardings (
  org_id text NOT NULL REFERENCES orgs(org_id),
  onboarding_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  employee_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'COMPLETED')),
  tfn_done_at timestamptz,
  super_done_at timestamptz,
  bank_done_at timestamptz,
  contract_done_at timestamptz,
  contract_ref text,
  contract_signed_on date,
  -- The human signature that released the contract step.
  contract_approval_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  PRIMARY KEY (org_id, onboarding_id),
  UNIQUE (org_id, employee_id),
  FOREIGN KEY (org_id, employee_id) REFERENCES books_employees (org_id, employee_id),
  CHECK ((status = 'COMPLETED') = (tfn_done_at IS NOT NULL AND super_done_at IS NOT NULL AND bank_done_at IS NOT NULL AND contract_done_at IS NOT NULL))
);

-- Status and payment are separate: wages owed = net - paid while POSTED (the status stays POSTED when paid).
CREATE TABLE books_pay_runs (
  org_id text NOT NULL REFERENCES orgs(org_id),
  run_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  period_start date NOT NULL,
  period_end date NOT NULL,
  pay_date date NOT NULL,
  status text NOT NULL CHECK (status IN ('DRAFT', 'POSTED', 'RECALLED', 'DELETED')),
  staff_count int NOT NULL CHECK (staff_count > 0),
  gross_cents bigint NOT NULL CHECK (gross_cents > 0),
  payg_cents bigint NOT NULL CHECK (payg_cents >= 0),
  super_cents bigint NOT NULL CHECK (super_cents >= 0),
  net_cents bigint NOT NULL,
  paid_cents bigint NOT NULL DEFAULT 0,
  journal_id text,
  recall_journal_id text,
  approval_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  posted_at timestamptz,
  recalled_at timestamptz,
  PRIMARY KEY (org_id, run_id),
  CHECK (period_end >= period_start AND pay_date >= period_end),
  CHECK (net_cents = gross_cents - payg_cents),
  CHECK (paid_cents >= 0 AND paid_cents <= net_cents),
  CHECK ((journal_id IS NOT NULL) = (status IN ('POSTED', 'RECALLED'))),
  CHECK ((recall_journal_id IS NOT NULL) = (status = 'RECALLED'))
);
CREATE INDEX books_pay_runs_by_period ON books_pay_runs (org_id, period_start);
CREATE INDEX books_pay_runs_by_pay_date ON books_pay_runs (org_id, pay_date);

-- One payslip per employee per run; name, rate and tax scale as they were when the run was drafted.
CREATE TABLE books_payslips (
  org_id text NOT NULL REFERENCES orgs(org_id),
  payslip_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  run_id text NOT NULL,
  employee_id text NOT NULL,
  employee_name text NOT NULL,
  days_employed int NOT NULL CHECK (days_employed > 0),
  pay_basis text NOT NULL CHECK (pay_basis IN ('ANNUAL', 'HOURLY')),
  rate_cents bigint NOT NULL,
  hours_per_week int NOT NULL,
  claims_tax_free_threshold boolean NOT NULL,
  unpaid_leave_hours numeric(8, 2) NOT NULL DEFAULT 0,
  unpaid_leave_cents bigint NOT NULL DEFAULT 0,
  gross_cents bigint NOT NULL CHECK (gross_cents >= 0),
  payg_cents bigint NOT NULL CHECK (payg_cents >= 0),
  super_cents bigint NOT NULL CHECK (super_cents >= 0),
  net_cents bigint NOT NULL,
  PRIMARY KEY (org_id, payslip_id),
  UNIQUE (org_id, run_id, employee_id),
  FOREIGN KEY (org_id, run_id) REFERENCES books_pay_runs (org_id, run_id),
  FOREIGN KEY (org_id, employee_id) REFERENCES books_employees (org_id, employee_id),
  CHECK (net_cents = gross_cents - payg_cents)
);

-- Single Touch Payroll. There is no ATO connection in the product: an integration (or the demo seed) reports
-- the ATO's answers through recordStpResponse; books.stpResubmit requeues failed ones and sends updates.
CREATE TABLE books_stp_events (
  org_id text NOT NULL REFERENCES orgs(org_id),
  stp_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  run_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('PAY', 'UPDATE')),
  status text NOT NULL CHECK (status IN ('QUEUED', 'SUBMITTED', 'ACCEPTED', 'FAILED', 'CANCELLED')),
  attempt int NOT NULL DEFAULT 1 CHECK (attempt >= 1),
  error text,
  pay_date date NOT NULL,
  -- 1 July to 30 June, e.g. '2026-27'.
  financial_year text NOT NULL,
  -- UPDATE: the accepted event it follows.
  follows text,
  -- Per employee: [{employeeId, name, grossCents, paygCents, superCents}] (a run's, or year-to-date).
  figures jsonb NOT NULL,
  gross_cents bigint NOT NULL,
  payg_cents bigint NOT NULL,
  super_cents bigint NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, stp_id),
  FOREIGN KEY (org_id, run_id) REFERENCES books_pay_runs (org_id, run_id),
  CHECK ((status = 'FAILED') = (error IS NOT NULL)),
  CHECK ((kind = 'UPDATE') = (follows IS NOT NULL))
);
CREATE INDEX books_stp_events_by_run ON books_stp_events (org_id, run_id);

CREATE TABLE books_leave (
  org_id text NOT NULL REFERENCES orgs(org_id),
  leave_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  employee_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('ANNUAL', 'PERSONAL', 'UNPAID')),
  start_date date NOT NULL,
  end_date date NOT NULL,
  hours numeric(8, 2) NOT NULL CHECK (hours > 0),
  status text NOT NULL CHECK (status IN ('REQUESTED', 'SCHEDULED', 'REJECTED')),
  note text,
  decided_by text,
  decided_at timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, leave_id),
  FOREIGN KEY (org_id, employee_id) REFERENCES books_employees (org_id, employee_id),
  CHECK (end_date >= start_date),
  CHECK ((status = 'REQUESTED') = (decided_at IS NULL))
);
CREATE INDEX books_leave_by_employee ON books_leave (org_id, employee_id);

-- Amount due = total - paid; PAID exactly when that is 0 (after approval).
CREATE TABLE books_expense_claims (
  org_id text NOT NULL REFERENCES orgs(org_id),
  claim_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  employee_id text NOT NULL,
  date date NOT NULL,
  merchant text NOT NULL,
  total_cents bigint NOT NULL CHECK (total_cents > 0),
  gst_cents bigint NOT NULL CHECK (gst_cents >= 0),
  account_code text NOT NULL,
  tax_code text NOT NULL CHECK (tax_code IN ('GST', 'GST_FREE', 'INPUT_TAXED', 'BAS_EXCLUDED')),
  receipt_ref text,
  status text NOT NULL CHECK (status IN ('SUBMITTED', 'AUTHORISED', 'PAID')),
  paid_cents bigint NOT NULL DEFAULT 0,
  approved_by text,
  approved_at timestamptz,
  journal_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, claim_id),
  FOREIGN KEY (org_id, employee_id) REFERENCES books_employees (org_id, employee_id),
  CHECK (paid_cents >= 0 AND paid_cents <= total_cents),
  CHECK ((status = 'PAID') = (paid_cents = total_cents)),
  CHECK ((journal_id IS NOT NULL) = (status <> 'SUBMITTED'))
);
CREATE INDEX books_expense_claims_by_employee ON books_expense_claims (org_id, employee_id);
