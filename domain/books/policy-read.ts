import type { Queryable } from '../../db/types.js';
import type { Deps } from '../core/deps.js';
import { booksPolicy } from './policy.js';
import { today } from './dates.js';
import { loadedSchedules, scheduleName, superGuaranteeRate } from './rates/index.js';
import { rulesTable } from './rates/rules.js';

/**
 * The books part of GET /policy (domain/governance/policy/read.ts): the org's policy, with the rates in force today, the
 * PAYG schedules loaded (a pay date outside them is refused) and the dated rules table with each row's law.
 */
export async function booksPolicyView(q: Queryable, orgId: string, deps: Pick<Deps, 'clock'>) {
  return {
    ...(await booksPolicy(q, orgId)),
    superGuaranteeBasisPoints: superGuaranteeRate(today(deps)),
    paygSchedules: (await loadedSchedules(q)).map((s) => ({
      name: scheduleName(s),
      year: s.label,
      from: s.from,
      to: s.to,
      source: s.source,
      published: s.published,
      samples: s.samples.length,
    })),
    rules: (await rulesTable(q)).map((r) => ({ ...r, per: r.per ?? null })),
  };
}
