import { ApiError } from '../../../protocol/errors.js';
import { RULE_NAMES } from '../../../protocol/reads/policy.js';

/**
 * One effective-dated rule value: what the law (or an announcement that is not yet law) sets from a date. The
 * rows are data; code asks for the value in force on a date (ruleInForce) and never spells a rate or a threshold.
 */

export type RuleName = (typeof RULE_NAMES)[number];

export type RuleStatus = 'LAW' | 'NOT_LAW';

export interface RuleRow<V extends number | string = number | string> {
  rule: RuleName;
  /** First day it applies to (a pay date, or the day an asset is first used). */
  from: string;
  /** Last day, or null while no end is set. */
  to: string | null;
  value: V;
  unit: 'basisPoints' | 'cents' | 'schedule';
  /** What the value is counted over: a quarter's or a financial year's earnings, one asset's cost. */
  per?: 'QUARTER' | 'FINANCIAL_YEAR' | 'ASSET';
  /** The Act or instrument and provision, or who announced it when it is not law. */
  law: string;
  /** Where the figure was read (https). */
  source: string;
  /** Only LAW rows are applied; NOT_LAW rows are shown so a reader knows what is coming and that it does not apply. */
  status: RuleStatus;
}

export const covers = (r: Pick<RuleRow, 'from' | 'to'>, date: string): boolean => r.from <= date && (r.to === null || date <= r.to);

/** The LAW row of `rule` in force on `date`, or CONFLICT naming the rule, the date and what is recorded. */
export function ruleInForce<V extends number | string>(rows: readonly RuleRow<V>[], rule: RuleName, date: string): RuleRow<V> {
  const found = rows.find((r) => r.rule === rule && r.status === 'LAW' && covers(r, date));
  if (found) return found;
  const known = rows.filter((r) => r.rule === rule && r.status === 'LAW').map((r) => `${r.from} to ${r.to ?? 'open'}`);
  throw new ApiError(
    'CONFLICT',
    `no ${rule} is recorded in law for ${date} (recorded: ${known.join('; ') || 'none'}); this release cannot compute it: the rules table (domain/books/rates) needs the new figure with its source`,
  );
}
