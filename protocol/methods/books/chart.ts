/*
 * The default chart of accounts (Xero AU codes). It is part of the contract: callers pass these codes.
 * Debits are positive and credits negative everywhere, so a debit-natured account (asset, expense) has a
 * positive normal balance and a credit-natured one (liability, equity, revenue) a negative one.
 */

export const ACCOUNT_TYPES = ['BANK', 'CURRENT_ASSET', 'FIXED_ASSET', 'CURRENT_LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/**
 * GST treatment of a line (Xero AU equivalents in brackets):
 * GST 10% GST on the supply (OUTPUT on sales, INPUT on purchases, capital on fixed assets);
 * GST_FREE no GST but reported on the BAS (EXEMPTOUTPUT / EXEMPTEXPENSES);
 * INPUT_TAXED no GST and no credit, reported on the BAS (INPUTTAXED, e.g. bank fees);
 * BAS_EXCLUDED not on the BAS at all (wages, depreciation, transfers).
 */
export const TAX_CODES = ['GST', 'GST_FREE', 'INPUT_TAXED', 'BAS_EXCLUDED'] as const;
export type TaxCode = (typeof TAX_CODES)[number];

export interface Account {
  code: string;
  name: string;
  type: AccountType;
  /** Tax code a line on this account takes when none is given. */
  defaultTaxCode: TaxCode;
  /** Control account: equals a subledger, so only its documents post to it. */
  control?: 'receivables' | 'payables' | 'expenseClaims' | 'wages';
  /** Tax account: posted only by the tax logic (GST, PAYG, super). */
  tax?: true;
  /** Fixed asset cost account: its accumulated depreciation account. */
  accumulated?: string;
}

export const CHART: readonly Account[] = [
  { code: '090', name: 'Bank', type: 'BANK', defaultTaxCode: 'BAS_EXCLUDED' },
  { code: '200', name: 'Sales', type: 'REVENUE', defaultTaxCode: 'GST' },
  { code: '260', name: 'Other revenue', type: 'REVENUE', defaultTaxCode: 'GST' },
  { code: '404', name: 'Bank fees', type: 'EXPENSE', defaultTaxCode: 'INPUT_TAXED' },
  { code: '416', name: 'Depreciation', type: 'EXPENSE', defaultTaxCode: 'BAS_EXCLUDED' },
  { code: '429', name: 'General expenses', type: 'EXPENSE', defaultTaxCode: 'GST' },
  { code: '477', name: 'Wages and salaries', type: 'EXPENSE', defaultTaxCode: 'BAS_EXCLUDED' },
  { code: '478', name: 'Superannuation', type: 'EXPENSE', defaultTaxCode: 'BAS_EXCLUDED' },
  { code: '610', name: 'Accounts receivable', type: 'CURRENT_ASSET', defaultTaxCode: 'BAS_EXCLUDED', control: 'receivables' },
  { code: '710', name: 'Office equipment', type: 'FIXED_ASSET', defaultTaxCode: 'GST', accumulated: '711' },
  { code: '711', name: 'Less accumulated depreciation on office equipment', type: 'FIXED_ASSET', defaultTaxCode: 'BAS_EXCLUDED' },
  { code: '720', name: 'Computer equipment', type: 'FIXED_ASSET', defaultTaxCode: 'GST', accumulated: '721' },
  { code: '721', name: 'Less accumulated depreciation on computer equipment', type: 'FIXED_ASSET', defaultTaxCode: 'BAS_EXCLUDED' },
  { code: '800', name: 'Accounts payable', type: 'CURRENT_LIABILITY', defaultTaxCode: 'BAS_EXCLUDED', control: 'payables' },
  { code: '801', name: 'Unpaid expense claims', type: 'CURRENT_LIABILITY', defaultTaxCode: 'BAS_EXCLUDED', control: 'expenseClaims' },
  { code: '804', name: 'Wages payable', type: 'CURRENT_LIABILITY', defaultTaxCode: 'BAS_EXCLUDED', control: 'wages' },
  { code: '820', name: 'GST', type: 'CURRENT_LIABILITY', defaultTaxCode: 'BAS_EXCLUDED', tax: true },
  { code: '825', name: 'PAYG withholding payable', type: 'CURRENT_LIABILITY', defaultTaxCode: 'BAS_EXCLUDED', tax: true },
  { code: '826', name: 'Superannuation payable', type: 'CURRENT_LIABILITY', defaultTaxCode: 'BAS_EXCLUDED', tax: true },
  { code: '830', name: 'ATO clearing', type: 'CURRENT_LIABILITY', defaultTaxCode: 'BAS_EXCLUDED' },
  { code: '850', name: 'Suspense', type: 'CURRENT_LIABILITY', defaultTaxCode: 'BAS_EXCLUDED' },
  { code: '960', name: 'Retained earnings', type: 'EQUITY', defaultTaxCode: 'BAS_EXCLUDED' },
];

export const ACCOUNT_CODES = CHART.map((a) => a.code) as [string, ...string[]];
export const ACCOUNTS: ReadonlyMap<string, Account> = new Map(CHART.map((a) => [a.code, a]));

/** Well-known codes, so code reads `ACC.bank` rather than '090'. */
export const ACC = {
  bank: '090',
  sales: '200',
  otherRevenue: '260',
  bankFees: '404',
  depreciation: '416',
  generalExpenses: '429',
  wages: '477',
  superannuation: '478',
  receivables: '610',
  payables: '800',
  expenseClaims: '801',
  wagesPayable: '804',
  gst: '820',
  paygWithholding: '825',
  superPayable: '826',
  atoClearing: '830',
  suspense: '850',
  retainedEarnings: '960',
} as const;

/** Accounts a manual journal may not touch: control accounts (their subledgers post them) and tax accounts. */
export const MANUAL_JOURNAL_FORBIDDEN: ReadonlySet<string> = new Set(CHART.filter((a) => a.control || a.tax).map((a) => a.code));

export const isDebitNatured = (type: AccountType): boolean => type === 'BANK' || type === 'CURRENT_ASSET' || type === 'FIXED_ASSET' || type === 'EXPENSE';
