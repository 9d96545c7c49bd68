import { ruleInForce, type RuleRow } from './rule.js';

/*
 * The super guarantee by date, as rows: the charge percentage and the maximum contribution base. The SG rate is
 * set by the Superannuation Guarantee (Administration) Act 1992 (SGAA) s 19(2); no step after 12% is legislated,
 * so that row has no end. The base is the most earnings an employer must provide SG on: per quarter until
 * 30 June 2026 (SGAA s 15, indexed each year), per financial year from 1 July 2026 under Payday Super (SGAA
 * s 10A(5) as inserted by the Treasury Laws Amendment (Payday Superannuation) Act 2025, No. 57 of 2025: the
 * concessional contributions cap * 100 / the charge percentage, rounded down to a multiple of $10).
 */

const SG_LAW = 'Superannuation Guarantee (Administration) Act 1992 s 19(2) (charge percentage)';
const SG_SOURCE = 'https://www.ato.gov.au/tax-rates-and-codes/key-superannuation-rates-and-thresholds/super-guarantee';
const QUARTER_LAW = 'Superannuation Guarantee (Administration) Act 1992 s 15 (maximum contribution base per quarter, indexed each financial year)';
const PAYDAY_LAW =
  'Superannuation Guarantee (Administration) Act 1992 s 10A(5) (maximum contributions base per financial year), inserted by the Treasury Laws Amendment (Payday Superannuation) Act 2025, No. 57 of 2025';

export const SUPER_RULES: readonly RuleRow<number>[] = [
  { rule: 'super.guaranteeRate', from: '2023-07-01', to: '2024-06-30', value: 1_100, unit: 'basisPoints', law: SG_LAW, source: SG_SOURCE, status: 'LAW' },
  { rule: 'super.guaranteeRate', from: '2024-07-01', to: '2025-06-30', value: 1_150, unit: 'basisPoints', law: SG_LAW, source: SG_SOURCE, status: 'LAW' },
  { rule: 'super.guaranteeRate', from: '2025-07-01', to: null, value: 1_200, unit: 'basisPoints', law: SG_LAW, source: SG_SOURCE, status: 'LAW' },
  {
    rule: 'super.maxContributionBase',
    from: '2023-07-01',
    to: '2024-06-30',
    value: 6_227_000,
    unit: 'cents',
    per: 'QUARTER',
    law: QUARTER_LAW,
    source: 'https://csf.com.au/employers/resource-hub/employer-news-and-updates/ato-thresholds',
    status: 'LAW',
  },
  {
    rule: 'super.maxContributionBase',
    from: '2024-07-01',
    to: '2025-06-30',
    value: 6_507_000,
    unit: 'cents',
    per: 'QUARTER',
    law: QUARTER_LAW,
    source: 'https://csf.com.au/employers/resource-hub/employer-news-and-updates/ato-thresholds',
    status: 'LAW',
  },
  {
    rule: 'super.maxContributionBase',
    from: '2025-07-01',
    to: '2026-06-30',
    value: 6_250_000,
    unit: 'cents',
    per: 'QUARTER',
    law: QUARTER_LAW,
    source: 'https://www.australianretirementtrust.com.au/learn/superannuation/maximum-super-contribution-base',
    status: 'LAW',
  },
  {
    rule: 'super.maxContributionBase',
    from: '2026-07-01',
    to: '2027-06-30',
    value: 27_083_000,
    unit: 'cents',
    per: 'FINANCIAL_YEAR',
    law: PAYDAY_LAW,
    source: 'https://rest.com.au/tools-advice/learning-centre/super-tips/maximum-super-contribution-base',
    status: 'LAW',
  },
];

/** The super guarantee rate in basis points (1200 = 12%) for earnings paid on `date` (YYYY-MM-DD). */
export const superGuaranteeRate = (date: string): number => ruleInForce(SUPER_RULES, 'super.guaranteeRate', date).value;

/** The maximum contribution base row for earnings paid on `date`: its cents, and whether per quarter or per financial year. */
export const maxContributionBase = (date: string): RuleRow<number> => ruleInForce(SUPER_RULES, 'super.maxContributionBase', date);
