import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calling } from '../../../../protocol/methods/calling.js';
import { expectFrame } from '../../../helpers/frames.js';
import { callOrg, startCall, type CallOrg } from './kit.js';
import { ok } from '../../../helpers/calls.js';

/*
 * tests/pipeline/fuzz.test.ts reaches calling with ids that do not exist; this fuzzes every calling method at a
 * real live call, as its host, field by field (ids, emoji, times, texts, cursors, odd unicode): never a 5xx.
 */

let o: CallOrg;
let callId: string;
beforeAll(async () => {
  o = await callOrg();
  callId = (await startCall(o)).call.id;
  await ok(o.s, 'calling.join', { callId }, o.mia.key);
});
afterAll(() => o.s.close());

const odd = fc.constantFrom(
  '\u0000',
  '\ud800',
  'x\ud83d',
  '🎉',
  '🏳️‍🌈',
  '1️⃣',
  '🇦🇺',
  ':ok:',
  ':' + 'a'.repeat(64) + ':',
  '-->',
  '<v x>',
  '&amp;',
  '\u2028',
  ' ',
  '',
  'usr_nosuch',
  'all',
);
const anyValue = fc.oneof(
  odd,
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.integer(),
  fc.constantFrom(-1, 0, 1, 2 ** 31, 2 ** 53, 1.5, Number.MAX_SAFE_INTEGER, 604_800_000, 604_800_001),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(odd, fc.string({ maxLength: 10 })), { maxLength: 3 }),
);

describe('calling at a live call, fuzzed', () => {
  it.each(Object.keys(calling).sort())('calling.%s: never INTERNAL', async (name) => {
    const example = (calling as Record<string, { example: Record<string, unknown> }>)[name].example;
    const base: Record<string, unknown> = { ...example, ...('callId' in example ? { callId } : { channelId: o.channelId }) };
    const fields = [...new Set([...Object.keys(base), 'principalId', 'speakerLabel', 'cursor', 'format'])];
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...fields), anyValue, { maxKeys: 3 }), fc.constantFrom(o.owner, o.mia, o.agent), async (changes, who) => {
        const params = { ...base, ...changes };
        const res = await o.s.client.rpc(`calling.${name}`, params, { key: who.key });
        const context = `calling.${name} ${JSON.stringify(params).slice(0, 300)} -> ${res.status} ${res.raw.slice(0, 300)}`;
        expect(res.status, context).not.toBe(500);
        if (res.status !== 200) expectFrame({ status: res.status, raw: res.raw }, context);
      }),
      { numRuns: 40, interruptAfterTimeLimit: 30_000 },
    );
  });
});
