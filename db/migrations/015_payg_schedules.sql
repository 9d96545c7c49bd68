-- tables: books: books_payg_schedules
-- PAYG withholding schedules (ATO Schedule 1) an operator loaded with `payg-import`, beside the ones shipped in
-- domain/books/rates/schedules/. Global, not per org: the ATO's coefficients are the law for every employer,
-- and one import serves every org (each org's ledger records it). A later import with the same `from` replaces
-- the earlier one (a corrected file).
CREATE TABLE books_payg_schedules (
  from_date date PRIMARY KEY,
  to_date date NOT NULL CHECK (to_date >= from_date),
  label text NOT NULL,
  source text NOT NULL,
  published date NOT NULL,
  scales jsonb NOT NULL,
  samples jsonb NOT NULL DEFAULT '[]',
  loaded_at timestamptz NOT NULL DEFAULT now()
);

-- The schedule each pay run and payslip was computed under, by name (`ATO Schedule 1 2024-25 (from 2024-07-01)`).
ALTER TABLE books_pay_runs ADD COLUMN payg_schedule text;
ALTER TABLE books_payslips ADD COLUMN payg_schedule text;
