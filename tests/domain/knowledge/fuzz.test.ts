import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyValue, fuzzAtRows, oddStrings } from '../../helpers/fuzz.js';
import { knowledge } from '../../../protocol/methods/knowledge.js';
import { memory } from '../../../protocol/methods/memory.js';
import { sop } from '../../../protocol/methods/sop.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { ok } from '../../helpers/calls.js';
import { appendEntry, memOrg, type MemOrg } from './kit.js';

/*
 * tests/pipeline/fuzz.test.ts reaches these families with ids that do not exist; this fuzzes every method of
 * knowledge, memory and sop at real rows (an entry, a shared block with an open amendment, an SOP), field by field,
 * as a human, an agent and a viewer: never a 5xx, and the chain still verifies.
 */

let o: MemOrg;
const ids: Record<string, string> = {};
beforeAll(async () => {
  o = await memOrg();
  ids.entryId = (await appendEntry(o, 'Fuzz target entry about invoices.')).id;
  ids.blockId = (await ok(o.s, 'memory.author', { label: 'fuzz', value: 'Fuzz value.', audience: 'org' }, o.mia.key)).block.id;
  ids.amendmentId = (await ok(o.s, 'memory.proposeAmendment', { blockId: ids.blockId, op: 'append', newText: 'More.', reason: 'r' }, o.agent.key)).amendment.id;
  ids.sopId = (await ok(o.s, 'sop.create', { title: 'Fuzz SOP', purpose: 'p', steps: [{ text: 's' }] })).sop.id;
});
afterAll(async () => {
  expect((await verifyOrgChain(o.s.runtime.db, o.s.org.orgId)).ok).toBe(true);
  await o.s.close();
});

const odd = oddStrings('kn_nosuch', 'mem_x', 'usr_x', 'replace', 'org');
const values = anyValue(
  odd,
  fc.constantFrom(2000, 2001),
  fc.array(fc.oneof(odd, fc.string({ maxLength: 10 }), fc.record({ kind: fc.constantFrom('url', 'x'), ref: odd })), { maxLength: 3 }),
  fc.record({ agents: fc.array(odd, { maxLength: 2 }) }),
);

const methods = [
  ...Object.entries(knowledge).map(([n, c]) => [`knowledge.${n}`, c.example] as const),
  ...Object.entries(memory).map(([n, c]) => [`memory.${n}`, c.example] as const),
  ...Object.entries(sop).map(([n, c]) => [`sop.${n}`, c.example] as const),
];

describe('knowledge, memory and sop at real rows, fuzzed', () => {
  it.each(methods.map(([m, e]) => [m, e] as const))('%s: never INTERNAL', (name, example) =>
    fuzzAtRows(name, {
      client: o.s.client,
      example,
      ids,
      fields: ['oldText', 'op', 'verify', 'ifRevision', 'asOf', 'cursor', 'status', 'audience'],
      keys: [o.owner.key, o.agent.key, o.viewer.key],
      values,
    }),
  );
});
