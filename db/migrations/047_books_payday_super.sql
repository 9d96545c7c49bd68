-- tables: books: books_super_fund_changes
-- Payday Super as the law reads (issue 27): what the due dates and "received" need that nothing recorded.

-- An out-of-cycle run (a payment outside the regular pay cycle): its super is due 7 business days after the next
-- regular payday, not after its own.
ALTER TABLE books_pay_runs ADD COLUMN out_of_cycle boolean NOT NULL DEFAULT false;

-- A re-employed employee is a new employee record pointing at the former one, which ends (no longer paid).
ALTER TABLE books_employees ADD COLUMN rehire_of text;
ALTER TABLE books_employees DROP CONSTRAINT books_employees_status_check;
ALTER TABLE books_employees ADD CONSTRAINT books_employees_status_check CHECK (status IN ('PENDING', 'ACTIVE', 'ENDED'));

-- Each change of an employee's super details after the super step: the first pay run paid on or after a change
-- to a new fund (another USI) has 20 business days for that employee's super.
CREATE TABLE books_super_fund_changes (
  org_id text NOT NULL REFERENCES orgs(org_id),
  n bigint GENERATED ALWAYS AS IDENTITY,
  employee_id text NOT NULL,
  fund_name text NOT NULL,
  usi text NOT NULL,
  member_number text NOT NULL,
  previous_usi text NOT NULL,
  new_fund boolean NOT NULL,
  changed_on date NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, n)
);
CREATE INDEX books_super_fund_changes_by_employee ON books_super_fund_changes (org_id, employee_id, changed_on);

-- A fund's (or clearing house's) acknowledgement of a super contribution is a receipt linked to the bank line that
-- sent it, dated when the fund received it: super counts when the fund receives it.
ALTER TABLE books_receipts DROP CONSTRAINT books_receipts_link_kind_check;
ALTER TABLE books_receipts ADD CONSTRAINT books_receipts_link_kind_check CHECK (link_kind IN ('line', 'bill', 'claim', 'super'));
