-- What a payslip's gross and super were computed under (domain/books/payroll/payslips.ts, super-base.ts):
-- the contract's pay for a full period, and the super guarantee rate and maximum contribution base of the pay
-- date with the earnings already paid in the base period. NULL on payslips drafted before this migration.
ALTER TABLE books_payslips
  ADD COLUMN period_pay_cents bigint CHECK (period_pay_cents >= 0),
  ADD COLUMN super_rate_bp int CHECK (super_rate_bp >= 0),
  ADD COLUMN super_base_cents bigint CHECK (super_base_cents > 0),
  ADD COLUMN super_base_per text CHECK (super_base_per IN ('QUARTER', 'FINANCIAL_YEAR')),
  ADD COLUMN super_base_start date,
  ADD COLUMN super_base_end date,
  ADD COLUMN super_earlier_cents bigint CHECK (super_earlier_cents >= 0),
  ADD COLUMN super_earnings_cents bigint CHECK (super_earnings_cents >= 0 AND super_earnings_cents <= gross_cents);
