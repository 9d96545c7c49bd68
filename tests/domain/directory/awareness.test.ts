import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { touchAwareness } from '../../../domain/directory/index.js';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';
import { type TestClient } from '../../helpers/harness.js';
import { err, eventsAfter, head, ok, otherOrg } from '../../helpers/calls.js';
import { keyWith, markMerged, newPerson } from './kit.js';

/** directory.setAwareness, requestAwareness, resolveAwarenessRequest, listAwarenessRequests, and the awareness part of scenario 6. */

const CANARY = 'zqawarecanary5128';
let s: CanaryServer;
let other: TestClient;
let me: string;
type Member = { id: string; key: string };
let ann: Member;
let bob: Member;
let cat: Member;
let readOnly: string;
beforeAll(async () => {
  s = await canaryServer();
  other = await otherOrg(s);
  me = (await s.client.get('org/whoami')).body.principal.id;
  const mint = async (name: string) => {
    const m = await s.client.mint({ tier: 'member' }, name);
    return { id: m.principal.id, key: m.apiKey };
  };
  ann = await mint('ann');
  bob = await mint('bob');
  cat = await mint('cat');
  readOnly = await keyWith(s, ['org.read', 'directory.read']);
});
afterAll(() => s.close());

const call = (method: string, params: Record<string, unknown>, key?: string) => ok(s.client, method, params, key);
const fail = (method: string, params: unknown, key?: string) => err(s.client, method, params, key);
const touch = (partyId: string, principalId: string) => s.runtime.db.tx((q) => touchAwareness(q, s.org.orgId, { partyId, principalId }));

describe('scenario 6: awareness (request -> done)', () => {
  it('asks the colleague who knows Jane best; they accept and mark it done; the requester now has met her', async () => {
    const jane = await newPerson(s.client, { given: 'Jane', family: 'Known' });
    await call('directory.setAwareness', { partyId: jane.id, level: 'met' }, ann.key);
    await call('directory.setAwareness', { partyId: jane.id, level: 'close' }, bob.key);
    await touch(jane.id, cat.id);
    const asked = await call('directory.requestAwareness', { partyId: jane.id, kind: 'introduce', note: 'Pitching next week' });
    expect(asked).toMatchObject({
      changed: true,
      request: {
        party: { id: jane.id, kind: 'person', displayName: 'Jane Known' },
        kind: 'introduce',
        requesterId: me,
        targetId: bob.id,
        status: 'pending',
        note: 'Pitching next week',
      },
    });
    const inbox = await call('directory.listAwarenessRequests', {}, bob.key);
    expect(inbox.requests.map((r: any) => r.id)).toEqual([asked.request.id]);
    await call('directory.resolveAwarenessRequest', { requestId: asked.request.id, decision: 'accept' }, bob.key);
    const done = await call('directory.resolveAwarenessRequest', { requestId: asked.request.id, decision: 'done' }, bob.key);
    expect(done).toMatchObject({
      changed: true,
      request: { status: 'done' },
      raised: [{ partyId: jane.id, principalId: me, level: 'met', source: 'derived' }],
    });
    expect(done.request.resolvedAt).not.toBeNull();
    const detail = (await call('directory.getPerson', { personId: jane.id })).person.awareness;
    // Closest first; ann and the requester share a level (their order is by id).
    expect(detail.map((a: any) => a.level)).toEqual(['close', 'met', 'met', 'knows_of']);
    expect(detail.map((a: any) => [a.principalId, a.level]).sort()).toEqual(
      [
        [bob.id, 'close'],
        [ann.id, 'met'],
        [me, 'met'],
        [cat.id, 'knows_of'],
      ].sort(),
    );
    expect((await call('directory.listPeople', { knownBy: me })).people.map((p: any) => p.id)).toContain(jane.id);
  });
});

describe('directory.setAwareness', () => {
  it('declares, changes and clears a level (for the caller or a colleague); the same again is changed:false; a touch never overrides it', async () => {
    const p = await newPerson(s.client, { given: 'Level', family: 'Set' });
    const seq = await head(s.client);
    const set = await call('directory.setAwareness', { partyId: p.id, level: 'works_with' });
    expect(set).toMatchObject({ changed: true, awareness: { partyId: p.id, principalId: me, level: 'works_with', source: 'declared', interactions: 0 } });
    expect(await call('directory.setAwareness', { partyId: p.id, level: 'works_with' })).toMatchObject({ changed: false });
    const cleared = await call('directory.setAwareness', { partyId: p.id, level: 'none' });
    expect(cleared).toMatchObject({ changed: true, awareness: { id: set.awareness.id, level: null, source: 'declared' } });
    await touch(p.id, me);
    const [row] = (await call('directory.getPerson', { personId: p.id })).person.awareness;
    expect(row).toMatchObject({ principalId: me, level: null });
    expect(row.lastInteractionAt).not.toBeNull();
    const forAnn = await call('directory.setAwareness', { partyId: p.id, principalId: ann.id, level: 'knows_of' });
    expect(forAnn.awareness).toMatchObject({ principalId: ann.id, level: 'knows_of' });
    // None for someone with no record: a declared "does not know", which touches then leave alone.
    const none = await call('directory.setAwareness', { partyId: p.id, principalId: cat.id, level: 'none' });
    expect(none).toMatchObject({ changed: true, awareness: { principalId: cat.id, level: null, source: 'declared' } });
    const events = await eventsAfter(s.client, seq);
    const base = { partyId: p.id };
    expect(events.map((e) => [e.kind, e.entity_id, e.payload])).toEqual([
      ['directory.awareness.set', set.awareness.id, { awarenessId: set.awareness.id, ...base, principalId: me, level: 'works_with', previousLevel: null }],
      [
        'directory.awareness.set',
        set.awareness.id,
        { awarenessId: set.awareness.id, ...base, principalId: me, level: 'works_with', previousLevel: 'works_with', noop: true },
      ],
      ['directory.awareness.set', set.awareness.id, { awarenessId: set.awareness.id, ...base, principalId: me, level: null, previousLevel: 'works_with' }],
      [
        'directory.awareness.set',
        forAnn.awareness.id,
        { awarenessId: forAnn.awareness.id, ...base, principalId: ann.id, level: 'knows_of', previousLevel: null },
      ],
      ['directory.awareness.set', none.awareness.id, { awarenessId: none.awareness.id, ...base, principalId: cat.id, level: null, previousLevel: null }],
    ]);
  });

  it('a merged party is followed; unknown and foreign parties, a non-member, bad levels and a missing scope are refused, appending nothing', async () => {
    const survivor = await newPerson(s.client, { given: 'Aware', family: 'Survivor' });
    const gone = await newPerson(s.client, { given: 'Aware', family: 'Gone' });
    await markMerged(s, gone.id, survivor.id);
    const followed = await call('directory.setAwareness', { partyId: gone.id, level: 'met' });
    expect(followed.awareness.partyId).toBe(survivor.id);
    const foreign = (await ok(other, 'directory.createPerson', { given: 'Theirs' })).person;
    const seq = await head(s.client);
    expect(await fail('directory.setAwareness', { partyId: foreign.id, level: 'met' })).toEqual({
      code: 'NOT_FOUND',
      message: `person ${foreign.id} not found`,
    });
    expect((await fail('directory.setAwareness', { partyId: survivor.id, principalId: 'usr_nobody', level: 'met' })).message).toBe(
      'principalId: no member usr_nobody in this org',
    );
    expect((await fail('directory.setAwareness', { partyId: survivor.id, level: 'best_friends' })).message).toMatch(/^level: must be one of "knows_of"/);
    expect((await fail('directory.setAwareness', { partyId: survivor.id })).message).toBe('level: required');
    expect((await fail('directory.setAwareness', { partyId: survivor.id, level: 'met' }, readOnly)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('directory.requestAwareness', () => {
  it('a named colleague; the same open request again is changed:false; replayed by key; nobody knowing the party is a CONFLICT', async () => {
    const p = await newPerson(s.client, { given: 'Req', family: 'Named' });
    const seq = await head(s.client);
    const first = await s.client.rpc('directory.requestAwareness', { partyId: p.id, kind: 'brief', targetPrincipalId: ann.id }, { idem: 'awq-1' });
    expect(first.body.result).toMatchObject({ changed: true, request: { targetId: ann.id, kind: 'brief', status: 'pending', note: null } });
    const replay = await s.client.rpc('directory.requestAwareness', { partyId: p.id, kind: 'brief', targetPrincipalId: ann.id }, { idem: 'awq-1' });
    expect(replay.body.result).toEqual(first.body.result);
    const again = await call('directory.requestAwareness', { partyId: p.id, kind: 'brief', targetPrincipalId: ann.id });
    expect(again).toMatchObject({ changed: false, request: { id: first.body.result.request.id } });
    const nobody = await newPerson(s.client, { given: 'Req', family: 'Unknown' });
    await call('directory.setAwareness', { partyId: nobody.id, level: 'close' });
    const before = await head(s.client);
    expect(await fail('directory.requestAwareness', { partyId: nobody.id, kind: 'introduce' })).toEqual({
      code: 'CONFLICT',
      message: `nobody else in the org is recorded as knowing ${nobody.id}; name a colleague (targetPrincipalId), or record who knows them (directory.setAwareness)`,
    });
    expect(await head(s.client)).toBe(before);
    const events = await eventsAfter(s.client, seq);
    const id = first.body.result.request.id;
    expect(events.map((e) => [e.kind, e.payload])).toEqual([
      ['directory.awareness.request', { requestId: id, partyId: p.id, kind: 'brief', requesterId: me, targetId: ann.id, chosen: 'named', status: 'pending' }],
      [
        'directory.awareness.request',
        { requestId: id, partyId: p.id, kind: 'brief', requesterId: me, targetId: ann.id, chosen: 'named', status: 'pending', noop: true },
      ],
      ['directory.person.create', expect.objectContaining({ partyId: nobody.id })],
      ['directory.awareness.set', expect.objectContaining({ partyId: nobody.id, level: 'close' })],
    ]);
  });

  it('a knower who is not an active member is passed over; asking yourself, a non-member, an unknown party, bad input and a missing scope are refused', async () => {
    const p = await newPerson(s.client, { given: 'Req', family: 'Passed' });
    const leaver = await s.client.mint({ tier: 'member' }, 'leaver');
    await call('directory.setAwareness', { partyId: p.id, principalId: leaver.principal.id, level: 'close' });
    await call('directory.setAwareness', { partyId: p.id, principalId: cat.id, level: 'knows_of' });
    await call('admin.deactivate', { memberId: leaver.principal.id, reason: 'Left the company' });
    expect((await call('directory.requestAwareness', { partyId: p.id, kind: 'brief' })).request.targetId).toBe(cat.id);
    const seq = await head(s.client);
    expect((await fail('directory.requestAwareness', { partyId: p.id, kind: 'brief', targetPrincipalId: me })).message).toBe(
      'targetPrincipalId: you cannot ask yourself',
    );
    expect((await fail('directory.requestAwareness', { partyId: p.id, kind: 'brief', targetPrincipalId: 'usr_nobody' })).message).toBe(
      'targetPrincipalId: no member usr_nobody in this org',
    );
    expect((await fail('directory.requestAwareness', { partyId: p.id, kind: 'brief', targetPrincipalId: leaver.principal.id })).message).toBe(
      `targetPrincipalId: ${leaver.principal.id} is suspended`,
    );
    expect((await fail('directory.requestAwareness', { partyId: 'per_nobody', kind: 'brief', targetPrincipalId: ann.id })).code).toBe('NOT_FOUND');
    expect((await fail('directory.requestAwareness', { partyId: p.id, kind: 'gossip' })).message).toMatch(/^kind: must be one of/);
    expect((await fail('directory.requestAwareness', { partyId: p.id, kind: 'brief', note: 'x'.repeat(2001) })).message).toBe(
      'note: must be at most 2000 characters',
    );
    expect((await fail('directory.requestAwareness', { partyId: p.id, kind: 'brief', targetPrincipalId: ann.id }, readOnly)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('directory.resolveAwarenessRequest', () => {
  it('the colleague asked decides, the requester cancels, anyone else and finished requests are CONFLICTs; the same decision again is changed:false', async () => {
    const p = await newPerson(s.client, { given: 'Res', family: 'Olve' });
    const req = async (kind = 'brief') => (await call('directory.requestAwareness', { partyId: p.id, kind, targetPrincipalId: ann.id })).request.id;
    const r1 = await req();
    const seq = await head(s.client);
    expect(await fail('directory.resolveAwarenessRequest', { requestId: r1, decision: 'accept' })).toEqual({
      code: 'CONFLICT',
      message: `only ${ann.id}, the colleague asked, may accept request ${r1}`,
    });
    expect(await fail('directory.resolveAwarenessRequest', { requestId: r1, decision: 'cancel' }, ann.key)).toEqual({
      code: 'CONFLICT',
      message: `only its requester ${me} may cancel request ${r1}`,
    });
    expect((await fail('directory.resolveAwarenessRequest', { requestId: r1, decision: 'done' }, bob.key)).message).toBe(
      `only ${ann.id}, the colleague asked, may mark done request ${r1}`,
    );
    expect(await head(s.client)).toBe(seq);
    expect((await call('directory.resolveAwarenessRequest', { requestId: r1, decision: 'accept' }, ann.key)).changed).toBe(true);
    expect((await call('directory.resolveAwarenessRequest', { requestId: r1, decision: 'accept' }, ann.key)).changed).toBe(false);
    const cancelled = await call('directory.resolveAwarenessRequest', { requestId: r1, decision: 'cancel' });
    expect(cancelled).toMatchObject({ changed: true, raised: [], request: { status: 'cancelled' } });
    expect(await fail('directory.resolveAwarenessRequest', { requestId: r1, decision: 'done' }, ann.key)).toEqual({
      code: 'CONFLICT',
      message: `request ${r1} is cancelled; make a new request (directory.requestAwareness)`,
    });
    const r2 = await req('introduce');
    const declined = await call('directory.resolveAwarenessRequest', { requestId: r2, decision: 'decline' }, ann.key);
    expect(declined.request.status).toBe('declined');
    expect((await fail('directory.resolveAwarenessRequest', { requestId: r2, decision: 'accept' }, ann.key)).message).toBe(
      `request ${r2} is declined; make a new request (directory.requestAwareness)`,
    );
    // Done straight from pending; a brief makes the requester know of them; the colleague's own level is kept if higher.
    await call('directory.setAwareness', { partyId: p.id, level: 'close' }, ann.key);
    const r3 = await req();
    const done = await call('directory.resolveAwarenessRequest', { requestId: r3, decision: 'done' }, ann.key);
    expect(done.raised.map((a: any) => [a.principalId, a.level])).toEqual([[me, 'knows_of']]);
    expect(await call('directory.resolveAwarenessRequest', { requestId: r3, decision: 'done' }, ann.key)).toMatchObject({ changed: false, raised: [] });
    const events = (await eventsAfter(s.client, seq)).filter((e) => e.kind === 'directory.awareness.resolve');
    expect(events.map((e) => [e.payload.requestId, e.payload.decision, e.payload.status, e.payload.previousStatus, e.payload.noop ?? false])).toEqual([
      [r1, 'accept', 'accepted', 'pending', false],
      [r1, 'accept', 'accepted', 'accepted', true],
      [r1, 'cancel', 'cancelled', 'accepted', false],
      [r2, 'decline', 'declined', 'pending', false],
      [r3, 'done', 'done', 'pending', false],
      [r3, 'done', 'done', 'done', true],
    ]);
    expect(events[4].payload.raised).toEqual([{ awarenessId: done.raised[0].id, principalId: me, level: 'knows_of' }]);
  });

  it('unknown and foreign requests, bad decisions and a missing scope are refused', async () => {
    const theirs = (await ok(other, 'directory.createPerson', { given: 'Theirs' })).person;
    const otherMember = await other.mint({ tier: 'member' });
    const foreign = (await ok(other, 'directory.requestAwareness', { partyId: theirs.id, kind: 'brief', targetPrincipalId: otherMember.principal.id })).request;
    const seq = await head(s.client);
    expect(await fail('directory.resolveAwarenessRequest', { requestId: foreign.id, decision: 'cancel' })).toEqual({
      code: 'NOT_FOUND',
      message: `request ${foreign.id} not found`,
    });
    expect((await fail('directory.resolveAwarenessRequest', { requestId: 'awq_nothing', decision: 'accept' })).code).toBe('NOT_FOUND');
    expect((await fail('directory.resolveAwarenessRequest', { requestId: 'awq_nothing', decision: 'maybe' })).message).toMatch(/^decision: must be one of/);
    expect((await fail('directory.resolveAwarenessRequest', { requestId: 'awq_nothing', decision: 'accept' }, readOnly)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('directory.listAwarenessRequests', () => {
  it('to me, mine or both, newest first, by status and party, in pages; appends nothing', async () => {
    // A colleague of its own: nothing asked of them before.
    const dee = await s.client.mint({ tier: 'member' }, 'dee');
    const cat = { id: dee.principal.id, key: dee.apiKey };
    const p = await newPerson(s.client, { given: 'List', family: 'Req' });
    const q2 = await newPerson(s.client, { given: 'List', family: 'Other' });
    const a = (await call('directory.requestAwareness', { partyId: p.id, kind: 'brief', targetPrincipalId: cat.id })).request;
    const b = (await call('directory.requestAwareness', { partyId: q2.id, kind: 'brief', targetPrincipalId: cat.id })).request;
    const c2 = (await call('directory.requestAwareness', { partyId: p.id, kind: 'introduce', targetPrincipalId: me }, cat.key)).request;
    await call('directory.resolveAwarenessRequest', { requestId: a.id, decision: 'accept' }, cat.key);
    const seq = await head(s.client);
    const ids = async (params: Record<string, unknown>, key = cat.key) =>
      (await call('directory.listAwarenessRequests', params, key)).requests.map((r: any) => r.id);
    expect(await ids({})).toEqual([b.id, a.id]);
    expect(await ids({ box: 'mine' })).toEqual([c2.id]);
    expect(await ids({ box: 'all' })).toEqual([c2.id, b.id, a.id]);
    expect(await ids({ box: 'all', status: 'accepted' })).toEqual([a.id]);
    expect(await ids({ box: 'all', partyId: p.id })).toEqual([c2.id, a.id]);
    const page1 = await call('directory.listAwarenessRequests', { box: 'all', limit: 2 }, cat.key);
    expect(page1.requests.map((r: any) => r.id)).toEqual([c2.id, b.id]);
    const page2 = await call('directory.listAwarenessRequests', { box: 'all', limit: 2, cursor: page1.nextCursor }, cat.key);
    expect(page2).toMatchObject({ requests: [{ id: a.id }], nextCursor: null });
    expect(await ids({ box: 'all', partyId: p.id }, bob.key)).toEqual([]);
    expect((await fail('directory.listAwarenessRequests', { box: 'everyone' })).message).toMatch(/^box: must be one of/);
    expect((await fail('directory.listAwarenessRequests', { cursor: 'x' })).message).toBe('cursor: not a cursor this list returned');
    expect((await fail('directory.listAwarenessRequests', { partyId: 'per_nobody' })).code).toBe('NOT_FOUND');
    expect((await fail('directory.listAwarenessRequests', {}, await s.client.mint({ scopes: ['org.read'] }).then((m) => m.apiKey))).code).toBe(
      'FORBIDDEN_SCOPE',
    );
    expect((await eventsAfter(s.client, seq)).map((e) => e.kind)).toEqual(['settings.key.mint']);
  });
});

describe('directory awareness: the redaction canary', () => {
  it('no note reaches an event or a log line', async () => {
    const p = await newPerson(s.client, { given: `Canary${CANARY}` });
    const r = (await call('directory.requestAwareness', { partyId: p.id, kind: 'introduce', targetPrincipalId: ann.id, note: `Because ${CANARY}` })).request;
    await call('directory.resolveAwarenessRequest', { requestId: r.id, decision: 'done' }, ann.key);
    await call('directory.listAwarenessRequests', { box: 'all' });
    expectNoCanary(CANARY, { ledger: await s.ledgerText(), logs: s.logs() });
  });
});
