import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyValue, fuzzAtRows, oddStrings } from '../../helpers/fuzz.js';
import { crm } from '../../../protocol/methods/crm/index.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
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

const odd = oddStrings('AUDX', 'JPY', 'org', 'won', 'lead', '2026-Q3', '2026-13', 'acct_nosuch', 'deal_x', 'usr_x', 'per_x', 'http://localhost', 'x@y');
const values = anyValue(odd, fc.constantFrom(10001, '1899-01-01', '9999-12-31'));

describe('crm at real rows, fuzzed', () => {
  it.each(Object.entries(crm).map(([n, c]) => [`crm.${n}`, c.example] as const))('%s: never INTERNAL', (name, example) =>
    fuzzAtRows(name, {
      client: o.s.client,
      example,
      ids,
      fields: ['q', 'cursor', 'status', 'stage', 'currency', 'amountCents', 'ownerId', 'expectedVersion', 'risk', 'period'],
      keys: [o.owner.key, o.agent.key, o.viewer.key],
      values,
      numRuns: 25,
    }),
  );
});
