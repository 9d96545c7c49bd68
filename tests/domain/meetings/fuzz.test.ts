import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyValue, fuzzAtRows, oddStrings } from '../../helpers/fuzz.js';
import { meetings } from '../../../protocol/methods/meetings.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { call, callWith, mtgOrg, seedEvent, type MtgOrg } from './kit.js';

/*
 * Every meetings method fuzzed at real rows (a call, an event, a recorded meeting), field by field, as a human, an
 * agent and a viewer; and GET /meetings.list's query likewise: never a 5xx, and the chain still verifies.
 */

let o: MtgOrg;
const ids: Record<string, string> = {};
beforeAll(async () => {
  o = await mtgOrg();
  ids.callId = (await callWith(o, [{ speaker: o.ben, text: 'We agreed to fuzz.' }])).callId;
  ids.eventId = await seedEvent(o, { attendees: [o.ben], weekly: true });
  ids.meetingId = (await call(o, 'meetings.record', { callId: ids.callId, decisions: ['Fuzz it.'] })).meeting.id;
});
afterAll(async () => {
  expect((await verifyOrgChain(o.s.runtime.db, o.s.org.orgId)).ok).toBe(true);
  await o.s.close();
});

const odd = oddStrings('mtg_nosuch', 'call_x', 'cev_x', 'usr_x', 'fil_x', 'Ben', 'transcript');
const values = anyValue(
  odd,
  fc.constantFrom('2026-11-09T08:00:00Z'),
  fc.array(fc.oneof(odd, fc.record({ speaker: odd, text: odd, startMs: fc.integer() }), fc.record({ text: odd, assignee: odd, createTask: fc.boolean() })), {
    maxLength: 3,
  }),
);

describe('meetings at real rows, fuzzed', () => {
  it.each(Object.entries(meetings).map(([n, c]) => [`meetings.${n}`, c.example] as const))('%s: never INTERNAL', (name, example) =>
    fuzzAtRows(name, {
      client: o.s.client,
      example,
      ids,
      fields: ['meetingId', 'eventId', 'originalStart', 'callId', 'transcript', 'notes', 'startedAt', 'endedAt', 'folderId'],
      keys: [o.owner.key, o.agent.key, o.viewer.key, o.ben.key],
      values,
      numRuns: 40,
    }),
  );

  it('GET /meetings.list: never INTERNAL', async () => {
    const fields = ['id', 'include', 'from', 'to', 'q', 'attendeeId', 'cursor', 'limit'];
    const value = fc.oneof(
      odd,
      fc.string({ maxLength: 20 }),
      fc.integer().map(String),
      fc.constantFrom('transcript', ids.meetingId, o.ben.id, '2026-11-01T00:00:00Z', 'WzFd'),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: 3 }), fc.constantFrom(o.owner, o.agent, o.viewer), async (query, who) => {
        const res = await o.s.client.get('meetings.list', query, { key: who.key });
        expect(res.status, `${JSON.stringify(query)} -> ${res.raw.slice(0, 300)}`).not.toBe(500);
      }),
      { numRuns: 60, interruptAfterTimeLimit: 30_000 },
    );
  });
});
