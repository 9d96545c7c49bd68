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
  // Playbooks: a saved one, and a recommendation of a run (the deal's risk flags give some).
  const rule = { id: 'r1', when: { var: 'risk.singleThreaded' }, then: { action: 'task', title: 'Add a contact' } };
  ids.playbookId = (await o.s.client.ok('crm.savePlaybook', { definition: { name: 'Fuzz', rules: [rule] } })).playbook.id;
  ids.recommendationId = (await o.s.client.ok('crm.runNextBestAction', { dealId: ids.dealId })).recommendations[0].id;
  ids.interactionId = (await o.s.client.ok('crm.logInteraction', { kind: 'note', summary: 'A note.', dealId: ids.dealId })).interaction.id;
  // The deal desk: held terms and their open escalation.
  const desk = (await o.s.client.rpc('crm.proposeTerms', { dealId: ids.dealId, listCents: 100_000, discountBps: 2500, paymentDays: 30, termMonths: 12 })).body
    .result;
  ids.termsId = desk.terms.id;
  ids.escalationId = desk.escalation.id;
  // Rooms: a room, a guest token that may join calls, and a call.
  ids.shareId = (await o.s.client.ok('crm.shareDeal', { dealId: ids.dealId, show: { offer: true } })).room.id;
  ids.guestTokenId = (
    await o.s.client.ok('crm.mintGuestToken', { shareId: ids.shareId, email: 'fuzz.guest@buyer.example', capabilities: ['join_calls'] })
  ).guestToken.id;
  const channel = (await o.s.client.ok('channel.create', { name: 'fuzz-room-calls', private: true, memberIds: [] })).channel;
  ids.callId = (await o.s.client.ok('calling.start', { channelId: channel.id })).call.id;
});
afterAll(async () => {
  expect((await verifyOrgChain(o.s.runtime.db, o.s.org.orgId)).ok).toBe(true);
  await o.s.close();
});

const odd = oddStrings('AUDX', 'JPY', 'org', 'won', 'lead', '2026-Q3', '2026-13', 'acct_nosuch', 'deal_x', 'usr_x', 'per_x', 'http://localhost', 'x@y');
// Playbook definitions with odd rule trees: unknown facts and ops, wrong types, too deep, empty.
let deep: unknown = { var: 'risk.stalled' };
for (let i = 0; i < 10; i++) deep = { '!': deep };
const oddRules = fc.constantFrom(
  ...[
    { '>': [{ var: 'deal.amout' }, 1] },
    { method: ['x', 'toString'] },
    { '<': [{ var: 'deal.stage' }, 'a', 3] },
    deep,
    { in: [1, 2] },
    [],
    {},
    null,
    'x',
  ].map((when) => ({ name: 'Odd', rules: [{ id: 'r', when, then: { action: 'suggest', text: 'x' } }] })),
);
const values = anyValue(odd, fc.constantFrom(10001, '1899-01-01', '9999-12-31'), oddRules);

describe('crm at real rows, fuzzed', () => {
  it.each(Object.entries(crm).map(([n, c]) => [`crm.${n}`, c.example] as const))('%s: never INTERNAL', (name, example) =>
    fuzzAtRows(name, {
      client: o.s.client,
      example,
      ids,
      fields: [
        'q',
        'cursor',
        'status',
        'stage',
        'currency',
        'amountCents',
        'ownerId',
        'expectedVersion',
        'risk',
        'period',
        'discountBps',
        'listCents',
        'clauses',
        'kind',
        'approvalId',
        'summary',
        'kinds',
        'since',
        'occurredAt',
        'reason',
        'pinned',
        'question',
        'fileIds',
        'decidedBy',
        'definition',
        'enabled',
        'limit',
        'title',
        'dueDate',
        'assignee',
        'recommendationId',
        'show',
        'capabilities',
        'expiresInDays',
        'email',
        'personId',
        'allowDownload',
      ],
      keys: [o.owner.key, o.agent.key, o.viewer.key],
      values,
      numRuns: 25,
    }),
  );
});
