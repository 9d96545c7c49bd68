import type { Queryable } from '../../../db/types.js';
import { formatCents } from '../money.js';
import { loadedSchedules, scheduleName } from './index.js';
import type { RuleRow } from './rule.js';
import { SUPER_RULES } from './super.js';
import { WRITE_OFF_RULES } from './write-off.js';

/*
 * The dated rules table: every rate and threshold the books apply or report, each row with its dates, its law
 * and source, and whether it is law. GET /policy returns it (books.rules); docs/books.md carries the static rows
 * as a table that tests/domain/books/rules.test.ts holds equal to rulesMarkdown(STATIC_RULES).
 */

export type { RuleName, RuleRow, RuleStatus } from './rule.js';

/** The rows fixed in this release (the PAYG schedules are loaded data: see rulesTable). */
export const STATIC_RULES: readonly RuleRow[] = [...SUPER_RULES, ...WRITE_OFF_RULES];

const PAYG_LAW = 'Taxation Administration Act 1953 Sch 1 s 15-25 (withholding schedules); Schedule 1 (NAT 1004), statement of formulas';

/** The whole table: the static rows, then one row per PAYG schedule loaded (shipped or imported), by rule and date. */
export async function rulesTable(q: Queryable): Promise<RuleRow[]> {
  const payg = (await loadedSchedules(q)).map((s): RuleRow => ({
    rule: 'payg.schedule',
    from: s.from,
    to: s.to,
    value: scheduleName(s),
    unit: 'schedule',
    law: PAYG_LAW,
    source: s.source,
    status: 'LAW',
  }));
  return [...STATIC_RULES, ...payg];
}

/** `12%`, `11.5%`, `$62,500`, `$1,000`, or a schedule's name. */
export function ruleValueText(r: Pick<RuleRow, 'value' | 'unit'>): string {
  if (r.unit === 'schedule') return String(r.value);
  const n = Number(r.value);
  if (r.unit === 'basisPoints') return `${n / 100}%`;
  return formatCents(n).replace(/\.00$/, '');
}

const PER_TEXT = { QUARTER: 'a quarter', FINANCIAL_YEAR: 'a financial year', ASSET: 'an asset' } as const;
const RULE_TEXT: Record<RuleRow['rule'], string> = {
  'super.guaranteeRate': 'Super guarantee rate',
  'super.maxContributionBase': 'Maximum super contribution base',
  'assets.instantWriteOffThreshold': 'Instant asset write-off threshold (cost less than)',
  'payg.schedule': 'PAYG withholding schedule',
};

/** The rows as the markdown table docs/books.md shows. */
export function rulesMarkdown(rows: readonly RuleRow[]): string {
  const lines = ['| rule | from | to | value | status | law | source |', '| --- | --- | --- | --- | --- | --- | --- |'];
  for (const r of rows) {
    const value = r.per ? `${ruleValueText(r)} ${PER_TEXT[r.per]}` : ruleValueText(r);
    lines.push(
      `| ${RULE_TEXT[r.rule]} | ${r.from} | ${r.to ?? 'no end set'} | ${value} | ${r.status === 'LAW' ? 'law' : '**not law**'} | ${r.law} | <${r.source}> |`,
    );
  }
  return lines.join('\n');
}
