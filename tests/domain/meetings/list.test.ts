import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, head } from '../../helpers/calls.js';
import { call, callWith, list, mtgOrg, type MtgOrg } from './kit.js';

/*
 * GET /meetings.list: newest first, a window by start, words of the title, notes and lines, a member's meetings,
 * keyset pages; one meeting by id with its transcript; misuse (bad query fields, an unknown or another org's
 * meeting, a key without knowledge.read); reads append nothing.
 */

let o: MtgOrg;
const ids: string[] = [];
beforeAll(async () => {
  o = await mtgOrg();
  const base = Date.parse('2026-10-01T09:00:00Z');
  for (const [i, words] of ['budget review', 'hiring plan', 'budget sign-off'].entries()) {
    const { callId } = await callWith(o, [{ speaker: o.ben, text: `Talking about the ${words}.` }]);
    const start = new Date(base + i * 86_400_000);
    const m = await call(o, 'meetings.record', {
      callId,
      startedAt: start.toISOString(),
      endedAt: new Date(start.getTime() + 3_600_000).toISOString(),
      notes: `Notes on ${words}`,
    });
    ids.push(m.meeting.id);
  }
});
afterAll(() => o.s.close());

describe('GET /meetings.list', () => {
  it('pages newest first and appends nothing', async () => {
    const before = await head(o.s);
    const p1 = await list(o, { limit: 2, to: '2026-10-10T00:00:00Z' });
    expect(p1.meetings.map((m: any) => m.id)).toEqual([ids[2], ids[1]]);
    const p2 = await list(o, { limit: 2, to: '2026-10-10T00:00:00Z', cursor: p1.nextCursor });
    expect(p2.meetings.map((m: any) => m.id)).toEqual([ids[0]]);
    expect(p2.nextCursor).toBeNull();
    expect(await eventsAfter(o.s, before)).toEqual([]);
  });

  it('filters by window, words and attendee', async () => {
    expect((await list(o, { from: '2026-10-02T00:00:00Z', to: '2026-10-03T00:00:00Z' })).meetings.map((m: any) => m.id)).toEqual([ids[1]]);
    expect((await list(o, { q: 'budget', to: '2026-10-10T00:00:00Z' })).meetings.map((m: any) => m.id)).toEqual([ids[2], ids[0]]);
    expect((await list(o, { q: 'hiring', to: '2026-10-10T00:00:00Z' })).meetings.map((m: any) => m.id)).toEqual([ids[1]]);
    expect((await list(o, { attendeeId: o.ben.id, to: '2026-10-10T00:00:00Z' })).meetings).toHaveLength(3);
    expect((await list(o, { attendeeId: o.agent.id })).meetings).toEqual([]);
  });

  it('one meeting by id, with its transcript', async () => {
    const one = await list(o, { id: ids[0], include: 'transcript' });
    expect(one.meeting.id).toBe(ids[0]);
    expect(one.lines.map((l: any) => l.text)).toEqual(['Talking about the budget review.']);
    expect(one.lines[0].id).toMatch(/^mtl_/);
    expect((await list(o, { id: ids[0] })).lines).toBeUndefined();
  });

  it('misuse: bad fields name themselves, unknown and other org ids are NOT_FOUND, scopes hold', async () => {
    const bad = async (query: Record<string, string | number>, field: RegExp, key?: string) => {
      const res = await o.s.client.get('meetings.list', query, { key });
      expect(res.status, res.raw).toBe(400);
      expect(res.body.error.message).toMatch(field);
    };
    await bad({ limit: 501 }, /^limit: must be at most 500/);
    await bad({ from: 'yesterday' }, /^from: /);
    await bad({ cursor: 'nope' }, /^cursor: /);
    await bad({ include: 'transcript' }, /^include: goes with id/);
    await bad({ from: '2026-10-05T00:00:00Z', to: '2026-10-01T00:00:00Z' }, /^to: must be after from/);
    await bad({ bogus: 1 }, /bogus/);
    expect((await o.s.client.get('meetings.list', { id: 'mtg_nosuch' })).status).toBe(404);
    expect((await o.other.get('meetings.list', { id: ids[0] })).status).toBe(404);
    expect((await o.other.get('meetings.list', {})).body.meetings).toEqual([]);
    const noScope = await o.s.client.mint({ scopes: ['org.read'], principalKind: 'human' });
    expect((await o.s.client.get('meetings.list', {}, { key: noScope.apiKey })).body.error.code).toBe('FORBIDDEN_SCOPE');
  });
});
