import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledge } from '../../../protocol/methods/knowledge.js';
import { memory } from '../../../protocol/methods/memory.js';
import { sop } from '../../../protocol/methods/sop.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { expectFrame } from '../../helpers/frames.js';
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

const odd = fc.constantFrom(
  '\u0000',
  '\ud800',
  'x\ud83d',
  '🎉',
  '',
  ' ',
  '"',
  "'",
  '\\',
  '%',
  '<script>',
  'a'.repeat(5000),
  'kn_nosuch',
  'mem_x',
  'usr_x',
  'replace',
  'org',
);
const anyValue = fc.oneof(
  odd,
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.integer(),
  fc.constantFrom(-1, 0, 1, 2 ** 31, 2 ** 53, 1.5, 2000, 2001),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('2026-01-01T00:00:00Z', '1899-01-01T00:00:00Z', '9999-12-31T23:59:59Z', 'not a date'),
  fc.array(fc.oneof(odd, fc.string({ maxLength: 10 }), fc.record({ kind: fc.constantFrom('url', 'x'), ref: odd })), { maxLength: 3 }),
  fc.record({ agents: fc.array(odd, { maxLength: 2 }) }),
);

const methods = [
  ...Object.entries(knowledge).map(([n, c]) => [`knowledge.${n}`, c.example] as const),
  ...Object.entries(memory).map(([n, c]) => [`memory.${n}`, c.example] as const),
  ...Object.entries(sop).map(([n, c]) => [`sop.${n}`, c.example] as const),
];

describe('knowledge, memory and sop at real rows, fuzzed', () => {
  it.each(methods.map(([m, e]) => [m, e] as const))('%s: never INTERNAL', async (name, example) => {
    const base: Record<string, unknown> = { ...(example as Record<string, unknown>) };
    for (const k of Object.keys(base)) if (k in ids) base[k] = ids[k];
    const fields = [...new Set([...Object.keys(base), 'oldText', 'op', 'verify', 'ifRevision', 'asOf', 'cursor', 'status', 'audience'])];
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
      { numRuns: 30, interruptAfterTimeLimit: 30_000 },
    );
  });
});
