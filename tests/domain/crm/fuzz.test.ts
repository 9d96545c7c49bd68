import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crm } from '../../../protocol/methods/crm/index.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { expectFrame } from '../../helpers/frames.js';
import { account, contact, crmOrg, deal, type CrmOrg } from './kit.js';

/*
 * tests/pipeline/fuzz.test.ts reaches crm with ids that do not exist; this fuzzes every crm method at real rows (an
 * account, a contact, an open deal), field by field, as a human, an agent and a viewer: never a 5xx, and the chain
 * still verifies.
 */

let o: CrmOrg;
const ids: Record<string, string> = {};
beforeAll(async () => {
  o = await crmOrg();
  ids.accountId = (await account(o)).id;
  ids.contactId = (await contact(o, { accountId: ids.accountId })).id;
  ids.dealId = (await deal(o, ids.accountId)).id;
});
afterAll(async () => {
  expect((await verifyOrgChain(o.s.runtime.db, o.s.org.orgId)).ok).toBe(true);
  await o.s.close();
});

const odd = fc.constantFrom(
  '\u0000',
  '\ud800',
  '🎉',
  '',
  ' ',
  "'",
  '\\',
  '%',
  'a'.repeat(5000),
  'AUDX',
  'JPY',
  'org',
  'won',
  'lead',
  '2026-Q3',
  '2026-13',
  'acct_nosuch',
  'deal_x',
  'usr_x',
  'per_x',
  'http://localhost',
  'x@y',
);
const anyValue = fc.oneof(
  odd,
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.constantFrom(-1, 0, 1, 2 ** 31, 2 ** 53, 1e16, 1.5, 10001),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('2026-01-01', '1899-01-01', '9999-12-31', 'not a date'),
  fc.array(odd, { maxLength: 2 }),
);

describe('crm at real rows, fuzzed', () => {
  it.each(Object.entries(crm).map(([n, c]) => [`crm.${n}`, c.example] as const))('%s: never INTERNAL', async (name, example) => {
    const base: Record<string, unknown> = { ...(example as Record<string, unknown>) };
    for (const k of Object.keys(base)) if (k in ids) base[k] = ids[k];
    const fields = [
      ...new Set([...Object.keys(base), 'q', 'cursor', 'status', 'stage', 'currency', 'amountCents', 'ownerId', 'expectedVersion', 'risk', 'period']),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...fields), anyValue, { maxKeys: 3 }),
        fc.constantFrom(o.owner, o.agent, o.viewer),
        async (changes, who) => {
          const params = { ...base, ...changes };
          const res = await o.s.client.rpc(name, params, { key: who.key });
          const context = `${name} ${JSON.stringify(params).slice(0, 300)} -> ${res.status} ${res.raw.slice(0, 300)}`;
          expect(res.status, context).not.toBe(500);
          if (res.status !== 200) expectFrame({ status: res.status, raw: res.raw }, context);
        },
      ),
      { numRuns: 25, interruptAfterTimeLimit: 20_000 },
    );
  });
});
