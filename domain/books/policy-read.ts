import { policyReadContracts } from '../../protocol/reads/policy.js';
import { reads } from '../family.js';
import { readHandler } from '../handler.js';
import { booksPolicy } from './policy.js';
import { today } from './dates.js';
import { loadedSchedules, scheduleName, superGuaranteeRate } from './rates/index.js';

/** The org's policy, with the rates in force today and the PAYG schedules loaded (a pay date outside them is refused). */
export const policy = readHandler(policyReadContracts.policy, async (ctx) => ({
  books: {
    ...(await booksPolicy(ctx.q, ctx.orgId)),
    superGuaranteeBasisPoints: superGuaranteeRate(today(ctx.deps)),
    paygSchedules: (await loadedSchedules(ctx.q)).map((s) => ({
      name: scheduleName(s),
      year: s.label,
      from: s.from,
      to: s.to,
      source: s.source,
      published: s.published,
      samples: s.samples.length,
    })),
  },
}));

export const booksReads = reads({ policy });
