import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFrame } from '../../../helpers/frames.js';
import { head, ok, otherOrg } from '../../../helpers/calls.js';
import type { TestClient } from '../../../helpers/harness.js';
import { decisionOrg, proposal, record, type Org } from './setup.js';
import { person, setRights, type Person } from '../../../helpers/people.js';

/* GET /decision.list: the log, its filters, full text, awaiting=me, and one full record. */

let o: Org;
let other: TestClient;
let foreign: any;
const ids: Record<string, string> = {};
beforeAll(async () => {
  o = await decisionOrg();
  other = await otherOrg(o.s);
  foreign = (await other.ok('decision.propose', { title: 'Foreign', area: 'x', decision: 'Theirs.' })).decision;
  const { s, staff, cfo, ceo } = o;
  await setRights(s, [
    { area: 'pricing', decidedBy: ceo.id, agree: [cfo.id] },
    { area: 'ops', decidedBy: ceo.id, agree: ['agents'] },
  ]);
  ids.eu = (await proposal(s, staff.key, 'pricing', { title: 'Raise European prices', context: 'Café costs rose in Zürich.' })).id;
  ids.us = (await proposal(s, staff.key, 'pricing.us', { title: 'Hold American prices' })).id;
  ids.ops = (await proposal(s, staff.key, 'ops', { title: 'Weekend opening', decision: 'Open on Saturdays with a skeleton crew.' })).id;
  ids.done = (await proposal(s, staff.key, 'ops', { title: 'Night shift' })).id;
  await ok(s, 'decision.sign', { decisionId: ids.done, version: 1 }, o.agent.key);
  await ok(s, 'decision.adopt', { decisionId: ids.done, version: 1 }, ceo.key);
});
afterAll(() => o.s.close());

const list = async (query: Record<string, string | number>, key?: string) => {
  const res = await o.s.client.get('decision.list', query, { key });
  expect(res.status, res.raw.slice(0, 300)).toBe(200);
  return res.body;
};
const listed = async (query: Record<string, string | number>, key?: string) => (await list(query, key)).decisions.map((d: any) => d.id);

describe('GET /decision.list', () => {
  it('newest first; by status, open, area; paged by cursor; no event', async () => {
    const seq = await head(o.s.client);
    expect(await listed({})).toEqual([ids.done, ids.ops, ids.us, ids.eu]);
    expect(await listed({ status: 'adopted' })).toEqual([ids.done]);
    expect(await listed({ status: 'open' })).toEqual([ids.ops, ids.us, ids.eu]);
    expect(await listed({ area: 'pricing' })).toEqual([ids.eu]);
    const first = await list({ limit: 3 });
    expect(first.decisions).toHaveLength(3);
    expect(first.decisions[0]).toEqual({
      id: ids.done,
      number: expect.any(Number),
      title: 'Night shift',
      area: 'ops',
      status: 'adopted',
      version: 1,
      contentHash: expect.any(String),
      driver: o.staff.id,
      reviewOn: null,
      supersedes: [],
      supersededBy: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const rest = await list({ limit: 3, cursor: first.nextCursor });
    expect(rest).toEqual({ decisions: [expect.objectContaining({ id: ids.eu })], nextCursor: null });
    expect(await head(o.s.client)).toBe(seq);
  });

  it('q: full text over title, decision and context (accents folded), typos on the title; with filters', async () => {
    expect(await listed({ q: 'saturdays' })).toEqual([ids.ops]);
    expect(await listed({ q: 'cafe zurich' })).toEqual([ids.eu]);
    expect(await listed({ q: 'prices' })).toEqual(expect.arrayContaining([ids.eu, ids.us]));
    expect(await listed({ q: 'prices', area: 'pricing.us' })).toEqual([ids.us]);
    expect(await listed({ q: 'Weekend openning' })).toEqual([ids.ops]);
    expect(await listed({ q: 'shift', status: 'open' })).toEqual([]);
    const page = await list({ q: 'prices', limit: 1 });
    expect(page.decisions).toHaveLength(1);
    const next = await list({ q: 'prices', limit: 1, cursor: page.nextCursor });
    expect(next.decisions.map((d: any) => d.id)).not.toContain(page.decisions[0].id);
  });

  it('awaiting=me: a signatory sees what needs its signature, a decider what is ready for it', async () => {
    const { s, cfo, ceo, agent, staff } = o;
    // pricing.us falls to the pricing right: the CFO signs it too.
    expect(await listed({ awaiting: 'me' }, cfo.key)).toEqual([ids.us, ids.eu]);
    // A page at a time (only as many judged as the page needs): the same decisions, in order; with a filter, all judged.
    const one = await list({ awaiting: 'me', limit: 1 }, cfo.key);
    expect(one.decisions.map((d: any) => d.id)).toEqual([ids.us]);
    expect(await list({ awaiting: 'me', limit: 1, cursor: one.nextCursor }, cfo.key)).toEqual({
      decisions: [expect.objectContaining({ id: ids.eu })],
      nextCursor: null,
    });
    expect(await listed({ awaiting: 'me', area: 'pricing', limit: 1 }, cfo.key)).toEqual([ids.eu]);
    expect(await listed({ awaiting: 'me' }, agent.key)).toEqual([ids.ops]);
    expect(await listed({ awaiting: 'me' }, ceo.key)).toEqual([]);
    expect(await listed({ awaiting: 'me' }, staff.key)).toEqual([]);
    await ok(s, 'decision.sign', { decisionId: ids.eu, version: 1 }, cfo.key);
    expect(await listed({ awaiting: 'me' }, cfo.key)).toEqual([ids.us]);
    expect(await listed({ awaiting: 'me' }, ceo.key)).toEqual([ids.eu]);
    expect(await listed({ awaiting: 'me', q: 'european' }, ceo.key)).toEqual([ids.eu]);
    // An admin decides anything by override, but nothing awaits it for that.
    expect(await listed({ awaiting: 'me' })).toEqual([]);
  });

  it('id: the full record with signatures, versions and requirements', async () => {
    const body = await record(o.s, ids.ops);
    expect(body.decision).toMatchObject({ id: ids.ops, decision: 'Open on Saturdays with a skeleton crew.', status: 'proposed', version: 1 });
    expect(body.signatures).toEqual([]);
    expect(body.versions).toEqual([{ version: 1, contentHash: body.decision.contentHash, proposedBy: o.staff.id, proposedAt: expect.any(String) }]);
    expect(body.requirements).toEqual({
      right: 'ops',
      decider: { decidedBy: o.ceo.id, escalateTo: null, humans: [o.ceo.id] },
      agree: ['agents'],
      missingSigners: ['agents'],
      openAdjustments: 0,
      ready: false,
    });
    expect((await record(o.s, ids.us)).requirements).toMatchObject({ right: 'pricing', missingSigners: [o.cfo.id] });
  });

  it('misuse: another org’s or an unknown id, bad cursor or status, missing scope', async () => {
    for (const id of [foreign.id, 'dec_unknown1']) expect((await o.s.client.get('decision.list', { id })).body.error.code).toBe('NOT_FOUND');
    expect((await o.s.client.get('decision.list', { cursor: 'xyz' })).body.error.message).toBe('cursor: not a cursor this list returned');
    expect((await o.s.client.get('decision.list', { q: 'prices', cursor: 'xyz' })).body.error.message).toBe('cursor: not a cursor this search returned');
    expect((await o.s.client.get('decision.list', { status: 'done' })).body.error.message).toMatch(/^status: must be one of/);
    expect((await o.s.client.get('decision.list', { limit: 501 })).body.error.message).toBe('limit: must be at most 500');
    const none: Person = await person(o.s, 'no scopes', { scopes: [], principalKind: 'agent' });
    const refused = await o.s.client.get('decision.list', {}, { key: none.key });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'FORBIDDEN_SCOPE']);
    expect(await listed({}, (await other.mint({ tier: 'reader' })).apiKey)).toEqual([foreign.id]);
  });

  it('random query strings: never INTERNAL, always the payload or a well-formed error', async () => {
    const value = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('open', 'me', 'dec_x', '-1', '0', '1e9', '"a" OR b', 'é\u0000', '%', '*'));
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('id', 'status', 'area', 'q', 'awaiting', 'cursor', 'limit', 'x'), value, { maxKeys: 4 }),
        async (query) => {
          const res = await o.s.client.get('decision.list', query);
          expect(res.status, `${JSON.stringify(query)} -> ${res.raw.slice(0, 200)}`).not.toBe(500);
          if (res.status !== 200) expectFrame({ status: res.status, raw: res.raw }, JSON.stringify(query));
        },
      ),
      { numRuns: 150 },
    );
  });
});
