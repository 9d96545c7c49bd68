import type { RuleRow } from './rule.js';

/*
 * The small business instant asset write-off threshold (Income Tax (Transitional Provisions) Act 1997 s 328-180):
 * a small business entity (aggregated turnover under $10 million) using simplified depreciation deducts at once an
 * asset costing less than it, first used or installed ready for use in the income year. Each $20,000 year was
 * enacted separately; without an extension the threshold is the $1,000 of the Income Tax Assessment Act 1997
 * s 328-180. The depreciation runs here do not apply it yet: the rows tell the reader (GET /policy) what is law.
 */

const IAWO = 'assets.instantWriteOffThreshold' as const;

export const WRITE_OFF_RULES: readonly RuleRow<number>[] = [
  {
    rule: IAWO,
    from: '2023-07-01',
    to: '2024-06-30',
    value: 2_000_000,
    unit: 'cents',
    per: 'ASSET',
    status: 'LAW',
    law: 'Income Tax (Transitional Provisions) Act 1997 s 328-180(4)(d), inserted by the Treasury Laws Amendment (Support for Small Business and Charities and Other Measures) Act 2024, No. 52 of 2024, Sch 1',
    source: 'https://ato.gov.au/law/view/print?DocID=PAC%2F20240052%2FSch1-Cl4&PiT=99991231235958',
  },
  {
    rule: IAWO,
    from: '2024-07-01',
    to: '2025-06-30',
    value: 2_000_000,
    unit: 'cents',
    per: 'ASSET',
    status: 'LAW',
    law: 'Income Tax (Transitional Provisions) Act 1997 s 328-180, extended by the Treasury Laws Amendment (Tax Incentives and Integrity) Act 2025, No. 29 of 2025, Sch 4',
    source: 'https://www.legislation.gov.au/C2025A00029/asmade/2025-03-27/text/original/epub/OEBPS/document_1/document_1.html',
  },
  {
    rule: IAWO,
    from: '2025-07-01',
    to: '2026-06-30',
    value: 2_000_000,
    unit: 'cents',
    per: 'ASSET',
    status: 'LAW',
    law: 'Income Tax (Transitional Provisions) Act 1997 s 328-180, extended by the Treasury Laws Amendment (Strengthening Financial Systems and Other Measures) Act 2025, Sch 7 (passed by Parliament in November 2025)',
    source: 'https://www.hayesknight.com.au/insights-and-updates/20k-instant-tax-break-for-business-passes-the-senate-finally?hs_amp=true',
  },
  {
    rule: IAWO,
    from: '2026-07-01',
    to: null,
    value: 100_000,
    unit: 'cents',
    per: 'ASSET',
    status: 'LAW',
    law: 'Income Tax Assessment Act 1997 s 328-180 (the ongoing $1,000 threshold, in force while no extension is enacted)',
    source: 'https://www.hayesknight.com.au/insights-and-updates/20k-instant-tax-break-for-business-passes-the-senate-finally?hs_amp=true',
  },
  {
    rule: IAWO,
    from: '2026-07-01',
    to: null,
    value: 2_000_000,
    unit: 'cents',
    per: 'ASSET',
    status: 'NOT_LAW',
    law: 'Announced in the 2026-27 Budget (12 May 2026) as a permanent $20,000 threshold; not law until Parliament enacts it',
    source: 'https://rulesmate.com.au/insights/instant-asset-write-off-2025-26-2026-27',
  },
];
