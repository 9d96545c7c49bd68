-- The employee's PAYG declaration beyond the tax-free threshold (TFN declaration, Medicare levy variation
-- declaration), which picks the Schedule 1 scale: residency and the Medicare levy variation. No TFN declared is
-- tfn NULL once the declaration is made (scale 4). Employees declared before this migration were residents with
-- no variation (the only declaration the product took).
ALTER TABLE books_employees ADD COLUMN residency text CHECK (residency IN ('RESIDENT', 'FOREIGN'));
ALTER TABLE books_employees ADD COLUMN medicare_levy_variation text CHECK (medicare_levy_variation IN ('NONE', 'HALF', 'FULL'));
UPDATE books_employees SET residency = 'RESIDENT', medicare_levy_variation = 'NONE' WHERE claims_tax_free_threshold IS NOT NULL;

-- An ACTIVE employee has made the declaration (with or without a TFN), chosen a fund and given a bank account.
ALTER TABLE books_employees DROP CONSTRAINT books_employees_check;
ALTER TABLE books_employees ADD CONSTRAINT books_employees_active_declared CHECK (
  status = 'PENDING' OR (residency IS NOT NULL AND medicare_levy_variation IS NOT NULL AND claims_tax_free_threshold IS NOT NULL
                         AND super_usi IS NOT NULL AND bank_account IS NOT NULL)
);

-- The scale each payslip was withheld on and why (`scale 4: no TFN declared, resident 47%`); NULL on payslips
-- drafted before scales were recorded (scale 2 or 1 by claims_tax_free_threshold).
ALTER TABLE books_payslips ADD COLUMN payg_scale text CHECK (payg_scale IN ('1', '2', '3', '4', '5', '6'));
ALTER TABLE books_payslips ADD COLUMN payg_scale_reason text;
