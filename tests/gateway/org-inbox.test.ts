import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOX_KINDS, inboxReadContracts } from '../../protocol/reads/inbox.js';
import { head, held, ok, otherOrg } from '../helpers/calls.js';
import { openEventStream } from '../helpers/sse.js';
import { daysLater, govOrg, task, type GovOrg } from '../domain/governance/escalation/setup.js';
import { person, setRights, type Person } from '../helpers/people.js';

/*
 * GET /api/v1/org/inbox: each kind (approval, signature, decision, handoff, escalation, introduction) for the
 * principal it waits on and no one else, as the clock moves; another org sees nothing; ETag and 304; a reader key's
 * own items; acting through each item's link; the approval inbox's route (/approvals/api/waiting) and its live
 * `waiting` frames.
 */

const ORIGIN = 'http://localhost:8080';
const result = inboxReadContracts['org/inbox'].result!;

let o: GovOrg;
/** Decides pricing: a human with decision.write, no approval.decide. */
let dina: Person;
let party: { id: string };
let generic: string;
let relayed: string;
let pricing: any;
let legal: any;
let research: any;
let offerB: any;
let offerReader: any;
let escalation: any;
let intro: any;
let brief: any;

/** GET /org/inbox as `key`, checked against its contract. */
async function inbox(key: string, query: Record<string, string | number> = {}): Promise<any> {
  const res = await o.s.client.get('org/inbox', query, { key });
  expect(res.status, res.raw.slice(0, 300)).toBe(200);
  const parsed = result.safeParse(res.body);
  expect(parsed.error?.issues ?? [], 'org/inbox matches its contract').toEqual([]);
  return res.body;
}

/** The items of one kind, as `kind:id`, for the principal of `key`. */
const ids = async (key: string) => (await inbox(key)).items.map((i: any) => `${i.kind}:${i.id}`).sort();

beforeAll(async () => {
  o = await govOrg();
  dina = await person(o.s, 'Dina Decider', { scopes: ['org.read', 'decision.write'], principalKind: 'human' });
  await setRights(o.s, [
    { area: 'pricing', decidedBy: dina.id, agree: [o.mia.id] },
    { area: 'research', decidedBy: o.lead.id, agree: [o.reader.id] },
    { area: 'legal', decidedBy: o.owner.id, agree: [o.lead.id] },
    { area: 'refunds', decidedBy: o.mia.id, escalateTo: o.max.id },
  ]);
  // An approval bound to no act: any human with approval.decide but its requester decides it.
  generic = (
    await ok(
      o.s,
      'approval.request',
      {
        actionClass: 'travel.booking_review',
        payloadHash: 'a'.repeat(64),
        subject: { kind: 'travel.review', subjectId: 'trip_1', summary: 'Book the Sydney trip' },
      },
      o.agentA.key,
    )
  ).approvalId;
  pricing = (await ok(o.s, 'decision.propose', { title: 'Raise list prices 4%', area: 'pricing', decision: 'From January.' }, o.agentA.key)).decision;
  legal = (await ok(o.s, 'decision.propose', { title: 'New NDA template', area: 'legal', decision: 'Use v3.' }, o.agentA.key)).decision;
  research = (await ok(o.s, 'decision.propose', { title: 'Fund the pilot', area: 'research', decision: 'Yes.' }, o.agentB.key)).decision;
  // The agent relays the lead's signature: held for the lead alone.
  const hold = await held(o.s, 'decision.sign', { decisionId: legal.id, version: 1, onBehalfOf: o.lead.id }, { key: o.agentA.key });
  relayed = (await ok(o.s, 'approval.request', { actionClass: hold.actionClass, payloadHash: hold.payloadHash, subject: hold.subject }, o.agentA.key))
    .approvalId;
  const t1 = await task(o.s, o.agentA.key);
  offerB = (await ok(o.s, 'handoff.offer', { subject: { kind: 'task', id: t1.id }, to: o.agentB.id, brief: 'Tests pass; deploy left.' }, o.agentA.key)).handoff;
  const t2 = await task(o.s, o.agentA.key);
  offerReader = (
    await ok(o.s, 'handoff.offer', { subject: { kind: 'task', id: t2.id }, to: o.reader.id, brief: 'Read the report.', expiresInHours: 24 }, o.agentA.key)
  ).handoff;
  escalation = (await ok(o.s, 'escalation.create', { title: 'Refund of 900 EUR', reason: 'outside_rights', severity: 'low', area: 'refunds' }, o.agentA.key))
    .escalation;
  party = (await ok(o.s, 'directory.createPerson', { given: 'Jane', family: 'Doe' })).person;
  intro = (await ok(o.s, 'directory.requestAwareness', { partyId: party.id, kind: 'introduce', targetPrincipalId: o.max.id }, o.mia.key)).request;
  brief = (await ok(o.s, 'directory.requestAwareness', { partyId: party.id, kind: 'brief', targetPrincipalId: o.reader.id }, o.mia.key)).request;
});
afterAll(() => o.s.close());

describe('GET /org/inbox: each kind for its principal', () => {
  it('approvals: a human with approval.decide, never the requester, only the deciders an approval names', async () => {
    expect(await ids(o.lead.key)).toEqual(expect.arrayContaining([`approval:${generic}`, `approval:${relayed}`]));
    const owner = await ids(o.owner.key);
    expect(owner).toContain(`approval:${generic}`);
    expect(owner).not.toContain(`approval:${relayed}`); // held for the lead alone
    for (const p of [o.mia, o.max, o.agentA, o.agentB, o.reader]) expect((await ids(p.key)).filter((i: string) => i.startsWith('approval:'))).toEqual([]);
    const item = (await inbox(o.lead.key)).items.find((i: any) => i.id === relayed);
    expect(item).toMatchObject({
      kind: 'approval',
      from: o.agentA.id,
      actionClass: 'decision.sign',
      link: { method: 'approval.resolve', params: { approvalId: relayed } },
    });
    expect(item.title).toContain('New NDA template');
  });

  it('signatures and decisions: awaiting=me of /decision.list; signing moves the decision to its decider; acting through the links', async () => {
    expect(await ids(o.mia.key)).toContain(`signature:${pricing.id}`);
    expect(await ids(o.lead.key)).toContain(`signature:${legal.id}`);
    expect(await ids(dina.key)).not.toContain(`decision:${pricing.id}`); // mia has not signed yet
    for (const p of [o.max, o.agentA, o.owner, o.lead]) expect((await ids(p.key)).some((i: string) => i.endsWith(pricing.id))).toBe(false);
    const awaiting = await o.s.client.get('decision.list', { awaiting: 'me' }, { key: o.mia.key });
    expect(awaiting.body.decisions.map((d: any) => d.id)).toEqual([pricing.id]);

    const sign = (await inbox(o.mia.key)).items.find((i: any) => i.id === pricing.id);
    expect(sign).toMatchObject({
      kind: 'signature',
      title: 'Raise list prices 4%',
      number: pricing.number,
      version: 1,
      area: 'pricing',
      from: o.agentA.id,
      link: { method: 'decision.sign', params: { decisionId: pricing.id, version: 1 } },
    });
    await ok(o.s, sign.link.method, sign.link.params, o.mia.key);
    expect(await ids(o.mia.key)).not.toContain(`signature:${pricing.id}`);
    const decide = (await inbox(dina.key)).items.find((i: any) => i.id === pricing.id);
    expect(decide).toMatchObject({ kind: 'decision', link: { method: 'decision.adopt', params: { decisionId: pricing.id, version: 1 } } });
    expect(Date.parse(decide.since)).toBeGreaterThanOrEqual(Date.parse(sign.since)); // since the last signature
    expect(await ids(o.owner.key)).not.toContain(`decision:${pricing.id}`); // an admin override is not "waiting on you"
    await ok(o.s, decide.link.method, decide.link.params, dina.key);
    expect((await ids(dina.key)).some((i: string) => i.endsWith(pricing.id))).toBe(false);
  });

  it('handoffs: the recipient sees the offer until it is answered or expires', async () => {
    const b = (await inbox(o.agentB.key)).items.find((i: any) => i.id === offerB.id);
    expect(b).toMatchObject({
      kind: 'handoff',
      title: 'Tests pass; deploy left.',
      from: o.agentA.id,
      subject: offerB.subject,
      expiresAt: offerB.expiresAt,
      since: offerB.offeredAt,
      link: { method: 'handoff.accept', params: { handoffId: offerB.id } },
    });
    for (const p of [o.agentA, o.mia, o.lead]) expect((await ids(p.key)).filter((i: string) => i.startsWith('handoff:'))).toEqual([]);
    const t = await task(o.s, o.agentA.key);
    const declined = (await ok(o.s, 'handoff.offer', { subject: { kind: 'task', id: t.id }, to: o.agentB.id, brief: 'Another one.' }, o.agentA.key)).handoff;
    expect(await ids(o.agentB.key)).toContain(`handoff:${declined.id}`);
    await ok(o.s, 'handoff.decline', { handoffId: declined.id, reason: 'No time this week.' }, o.agentB.key);
    expect(await ids(o.agentB.key)).not.toContain(`handoff:${declined.id}`);
    // Past its expiry (24 h) the reader's offer no longer waits on it.
    expect(await ids(o.reader.key)).toContain(`handoff:${offerReader.id}`);
    daysLater(o.clock, 1);
    try {
      expect(await ids(o.reader.key)).not.toContain(`handoff:${offerReader.id}`);
    } finally {
      o.clock.set('2026-11-20');
    }
  });

  it('escalations: the assignee as of now; the clock moves it up the chain, and nextChangeAt says when', async () => {
    const mia = await inbox(o.mia.key);
    const item = mia.items.find((i: any) => i.id === escalation.id);
    expect(item).toMatchObject({
      kind: 'escalation',
      title: 'Refund of 900 EUR',
      level: 1,
      severity: 'low',
      reason: 'outside_rights',
      from: o.agentA.id,
      since: escalation.raisedAt,
      nextLevelAt: '2026-11-21T09:00:00.000Z',
      link: { method: 'escalation.resolve', params: { escalationId: escalation.id } },
    });
    const max = await inbox(o.max.key);
    expect(max.counts.escalation).toBe(0);
    expect(max.nextChangeAt).toBe('2026-11-21T09:00:00.000Z'); // when it climbs to max
    daysLater(o.clock, 1);
    try {
      expect((await inbox(o.mia.key)).counts.escalation).toBe(0);
      const climbed = (await inbox(o.max.key)).items.find((i: any) => i.id === escalation.id);
      expect(climbed).toMatchObject({ level: 2, since: '2026-11-21T09:00:00.000Z', nextLevelAt: '2026-11-22T09:00:00.000Z' });
      for (const p of [o.agentA, o.agentB, o.reader]) expect((await ids(p.key)).filter((i: string) => i.startsWith('escalation:'))).toEqual([]);
    } finally {
      o.clock.set('2026-11-20');
    }
  });

  it('introductions: pending requests to the colleague asked, hidden from a key without directory.read', async () => {
    const max = (await inbox(o.max.key)).items.find((i: any) => i.id === intro.id);
    expect(max).toMatchObject({
      kind: 'introduction',
      title: 'Jane Doe',
      requestKind: 'introduce',
      party: { id: party.id, kind: 'person' },
      from: o.mia.id,
      link: { method: 'directory.resolveAwarenessRequest', params: { requestId: intro.id } },
    });
    expect(await ids(o.mia.key)).not.toContain(`introduction:${intro.id}`);
    const narrow = (await ok(o.s, 'settings.mintApiKey', { name: 'max, org.read only', scopes: ['org.read'], principalKind: 'human', principalId: o.max.id }))
      .apiKey;
    expect((await inbox(narrow)).counts.introduction).toBe(0);
    await ok(o.s, max.link.method, { ...max.link.params, decision: 'accept' }, o.max.key);
    expect(await ids(o.max.key)).not.toContain(`introduction:${intro.id}`); // accepted: no longer pending
  });

  it('a reader key sees its own items (a signature asked of it, an offer to it, a briefing asked of it), nothing of others', async () => {
    const body = await inbox(o.reader.key);
    expect(body.items.map((i: any) => `${i.kind}:${i.id}`).sort()).toEqual(
      [`handoff:${offerReader.id}`, `introduction:${brief.id}`, `signature:${research.id}`].sort(),
    );
    expect(body.counts).toEqual({ approval: 0, signature: 1, decision: 0, handoff: 1, escalation: 0, introduction: 1 });
    expect(body.total).toBe(3);
    expect(body.nextChangeAt).toBe(offerReader.expiresAt);
  });
});

describe('GET /org/inbox: the read', () => {
  it('newest first; counts cover all; limit cuts items (truncated); appends nothing; bad limit -> BAD_REQUEST naming it', async () => {
    const at = await head(o.s.client);
    const all = await inbox(o.lead.key);
    expect(all.items.length).toBeGreaterThanOrEqual(3);
    const since = all.items.map((i: any) => i.since);
    expect(since).toEqual([...since].sort().reverse());
    expect(all.total).toBe(INBOX_KINDS.reduce((n, k) => n + all.counts[k], 0));
    expect(all.truncated).toBe(false);
    const one = await inbox(o.lead.key, { limit: 1 });
    expect(one.items).toEqual([all.items[0]]);
    expect(one).toMatchObject({ counts: all.counts, total: all.total, truncated: true });
    const bad = await o.s.client.get('org/inbox', { limit: 0 }, { key: o.lead.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^limit: must be >= 1/);
    expect(await head(o.s.client)).toBe(at);
  });

  it('ETag like the other org reads: 304 while nothing changed, a new tag once something waits', async () => {
    const raw = (headers: Record<string, string> = {}) =>
      o.s.app.inject({ method: 'GET', url: '/api/v1/org/inbox', headers: { authorization: `Bearer ${o.max.key}`, ...headers } });
    const first = await raw();
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    expect((await raw({ 'if-none-match': etag })).statusCode).toBe(304);
    await ok(o.s, 'escalation.create', { title: 'Server down', reason: 'blocked', to: o.max.id }, o.agentB.key);
    const changed = await raw({ 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('another org sees nothing of this one; a key without org.read -> FORBIDDEN_SCOPE', async () => {
    const other = await otherOrg(o.s);
    const res = await other.get('org/inbox');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [],
      counts: { approval: 0, signature: 0, decision: 0, handoff: 0, escalation: 0, introduction: 0 },
      total: 0,
      truncated: false,
      nextChangeAt: null,
    });
    const none = (await o.s.client.mint({ scopes: ['board.read'] }, 'no org.read')).apiKey;
    expect((await o.s.client.get('org/inbox', {}, { key: none })).body.error).toMatchObject({
      code: 'FORBIDDEN_SCOPE',
      message: 'missing scope org.read for /org/inbox',
    });
  });
});

describe('the approval inbox: /approvals/api/waiting and its live frames', () => {
  let base: string;
  let lead: { cookie: string };
  beforeAll(async () => {
    const login = await o.s.app.inject({
      method: 'POST',
      url: '/approvals/api/session',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      payload: { apiKey: o.lead.key },
    });
    expect(login.statusCode).toBe(200);
    lead = { cookie: String(login.headers['set-cookie']).split(';')[0] };
    base = await o.s.app.listen({ port: 0, host: '127.0.0.1' });
  });

  it('serves the read as the session’s human, with who each item comes from by name; 401 without a session', async () => {
    const res = await o.s.app.inject({ method: 'GET', url: '/approvals/api/waiting', headers: { cookie: lead.cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json().result;
    const direct = await inbox(o.lead.key);
    expect(body.counts).toEqual(direct.counts);
    expect(body.items.map((i: any) => i.id)).toEqual(direct.items.map((i: any) => i.id));
    expect(body.items.find((i: any) => i.id === legal.id)).toMatchObject({ kind: 'signature', from: o.agentA.id, fromName: 'agent A' });
    expect((await o.s.app.inject({ method: 'GET', url: '/approvals/api/waiting' })).statusCode).toBe(401);
  });

  it('the stream sends `waiting` {family} when an escalation, an offer or a decision changes', async () => {
    const stream = await openEventStream(`${base}/approvals/api/stream`, lead.cookie);
    try {
      await stream.next('ready');
      await ok(o.s, 'escalation.create', { title: 'Vendor unpaid', reason: 'deadline', to: o.lead.id }, o.agentA.key);
      expect(await stream.next('waiting', (d) => d.family === 'escalation')).toEqual({ family: 'escalation' });
      await ok(o.s, 'decision.propose', { title: 'Another', area: 'legal', decision: 'x' }, o.agentB.key);
      expect(await stream.next('waiting', (d) => d.family === 'decision')).toEqual({ family: 'decision' });
      await ok(o.s, 'directory.requestAwareness', { partyId: party.id, kind: 'brief', targetPrincipalId: o.lead.id }, o.mia.key);
      expect(await stream.next('waiting', (d) => d.family === 'directory')).toEqual({ family: 'directory' });
      // Names and free text never ride on the frames: ids and family names only.
      expect(JSON.stringify(stream.events)).not.toMatch(/Vendor unpaid|Another|Jane Doe/);
    } finally {
      stream.close();
    }
  });
});
