import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { err, eventsAfter, head, ok, otherOrg, rpc } from '../../../helpers/calls.js';
import type { TestClient } from '../../../helpers/harness.js';
import { decisionOrg, proposal, record, type Org } from './setup.js';
import { setRights } from '../../../helpers/people.js';

/* decision.propose, comment, listComments and requestAdjustment: main paths and misuse. */

let o: Org;
let other: TestClient;
let foreign: any;
beforeAll(async () => {
  o = await decisionOrg();
  other = await otherOrg(o.s);
  foreign = (await other.ok('decision.propose', { title: 'Foreign', area: 'x', decision: 'Theirs.' })).decision;
  await setRights(o.s, [{ area: 'pricing', decidedBy: o.ceo.id, agree: [o.cfo.id] }]);
});
afterAll(() => o.s.close());

describe('decision.propose', () => {
  it('numbers per org, version 1, content hash; the driver’s re-proposal replaces given fields; same content -> changed:false', async () => {
    const { s, staff } = o;
    const seq = await head(s.client);
    const a = await proposal(s, staff.key, 'pricing', {
      context: 'Costs rose.',
      consequences: 'Churn risk.',
      links: [{ rel: 'see_also', target: 'https://example.com/x' }],
    });
    const b = await proposal(s, staff.key, 'pricing');
    expect(b.number).toBe(a.number + 1);
    expect(a).toMatchObject({
      status: 'proposed',
      version: 1,
      driver: staff.id,
      context: 'Costs rose.',
      amendment: null,
      adopted: null,
      closed: null,
      supersedes: [],
    });
    expect(a.contentHash).toMatch(/^[0-9a-f]{64}$/);
    const events = await eventsAfter(s.client, seq);
    expect(events[0]).toMatchObject({
      kind: 'decision.record.propose',
      entity_id: a.id,
      payload: { decisionId: a.id, number: a.number, version: 1, contentHash: a.contentHash, status: 'proposed', amendment: false, links: 1 },
    });

    const v2 = await ok(s, 'decision.propose', { decisionId: a.id, title: 'Retitled', context: null }, staff.key);
    expect(v2).toMatchObject({ changed: true, decision: { version: 2, title: 'Retitled', context: null, consequences: 'Churn risk.', decision: a.decision } });
    const same = await ok(s, 'decision.propose', { decisionId: a.id, title: 'Retitled' }, staff.key);
    expect(same).toMatchObject({ changed: false, decision: { version: 2, contentHash: v2.decision.contentHash } });
    const later = await eventsAfter(s.client, seq + 2);
    expect(later.map((e) => [e.kind, e.payload.version, e.payload.noop])).toEqual([
      ['decision.record.propose', 2, undefined],
      ['decision.record.propose', 2, true],
    ]);
    expect(later[0].payload).toMatchObject({ previousHash: a.contentHash, staleSignatures: 0, adjustmentsClosed: 0 });
  });

  it('amendment only for area charter; kept as structured charter operations', async () => {
    const { s, staff } = o;
    const amendment = {
      baseVersion: 3,
      ops: [{ op: 'updateClauses', params: { sectionId: 'sec_0123456789abcdef', clauses: [{ text: 'Agents never sign.' }] } }],
    };
    const e = await err(s, 'decision.propose', { title: 't', area: 'pricing', decision: 'd', amendment }, staff.key);
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'amendment: area charter only']);
    const c = await proposal(s, staff.key, 'charter', { amendment });
    expect(c.amendment).toEqual(amendment);
    expect((await err(s, 'decision.propose', { decisionId: c.id, area: 'ops' }, staff.key)).message).toBe('amendment: area charter only');
    expect((await ok(s, 'decision.propose', { decisionId: c.id, area: 'ops', amendment: null }, staff.key)).decision).toMatchObject({
      area: 'ops',
      amendment: null,
      version: 2,
    });
    expect(
      (await err(s, 'decision.propose', { title: 't', area: 'charter', decision: 'd', amendment: { ops: [{ op: 'rewriteAll', params: {} }] } }, staff.key))
        .message,
    ).toMatch(/^amendment\.ops\.0\.op: must be one of/);
  });

  it('misuse: required fields, bad area and links, another org’s or unknown id, not the driver, closed, missing scope; nothing appended', async () => {
    const { s, staff, ceo, cfo, reader } = o;
    const mine = await proposal(s, staff.key, 'pricing');
    const closed = await proposal(s, staff.key, 'pricing');
    await ok(s, 'decision.reverse', { decisionId: closed.id, reason: 'No longer needed.' }, staff.key);
    const seq = await head(s.client);
    const message = async (params: unknown, key = staff.key) => (await err(s, 'decision.propose', params, key)).message;
    expect(await message({ area: 'pricing', decision: 'd' })).toBe('title: required for a new decision (without decisionId)');
    expect(await message({ title: 't', decision: 'd' })).toBe('area: required for a new decision (without decisionId)');
    expect(await message({ title: 't', area: 'a..b', decision: 'd' })).toMatch(/^area: must be dot-separated names/);
    expect(await message({ title: 't', area: '*', decision: 'd' })).toMatch(/^area: /);
    expect(await message({ title: 't', area: 'a', decision: 'd', colour: 'red' })).toBe('colour: unknown field');
    expect(await message({ title: 't', area: 'a', decision: 'd', links: [{ rel: 'relates_to', target: foreign.id }] })).toBe(
      `links.0.target: no decision ${foreign.id} in this org`,
    );
    expect(await message({ decisionId: mine.id, links: [{ rel: 'refines', target: mine.id }] })).toBe('links.0.target: a decision does not link to itself');
    for (const id of [foreign.id, 'dec_unknown1']) expect((await err(s, 'decision.propose', { decisionId: id, title: 'x' }, staff.key)).code).toBe('NOT_FOUND');
    const notDriver = await err(s, 'decision.propose', { decisionId: mine.id, title: 'Mine now' }, cfo.key);
    expect(notDriver.code).toBe('CONFLICT');
    expect(notDriver.message).toContain(`is driven by ${staff.id}`);
    const shut = await err(s, 'decision.propose', { decisionId: closed.id, title: 'Again' }, staff.key);
    expect(shut.code).toBe('CONFLICT');
    expect(shut.message).toMatch(/is withdrawn: closed is final; propose a new decision instead/);
    expect((await err(s, 'decision.propose', { title: 't', area: 'a', decision: 'd' }, reader.key)).code).toBe('FORBIDDEN_SCOPE');
    expect((await err(s, 'decision.propose', { decisionId: mine.id, title: 'x' }, ceo.key)).code).toBe('CONFLICT');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('decision.comment and decision.listComments', () => {
  it('anyone comments, on any status; listed oldest first, by kind, in pages; no event for the list', async () => {
    const { s, staff, ceo, agent } = o;
    const d = await proposal(s, staff.key, 'pricing');
    const seq = await head(s.client);
    const c1 = await ok(s, 'decision.comment', { decisionId: d.id, body: 'First.' }, agent.key);
    expect(c1).toMatchObject({ changed: true, comment: { decisionId: d.id, version: 1, kind: 'comment', body: 'First.', author: agent.id } });
    await ok(s, 'decision.requestAdjustment', { decisionId: d.id, version: 1, body: 'Second.' }, ceo.key);
    await ok(s, 'decision.reverse', { decisionId: d.id, reason: 'Withdrawn.' }, staff.key);
    await ok(s, 'decision.comment', { decisionId: d.id, body: 'Third, after it closed.' }, staff.key);
    const events = await eventsAfter(s.client, seq);
    expect(events[0]).toMatchObject({
      kind: 'decision.comment.add',
      entity_id: d.id,
      payload: { decisionId: d.id, commentId: c1.comment.id, version: 1, kind: 'comment' },
    });

    const at = await head(s.client);
    const all = await ok(s, 'decision.listComments', { decisionId: d.id });
    expect(all.comments.map((c: any) => c.body)).toEqual(['First.', 'Second.', 'Third, after it closed.']);
    expect((await ok(s, 'decision.listComments', { decisionId: d.id, kind: 'adjustment' })).comments.map((c: any) => c.kind)).toEqual(['adjustment']);
    const p1 = await ok(s, 'decision.listComments', { decisionId: d.id, limit: 2 });
    const p2 = await ok(s, 'decision.listComments', { decisionId: d.id, limit: 2, cursor: p1.nextCursor });
    expect([...p1.comments, ...p2.comments].map((c: any) => c.id)).toEqual(all.comments.map((c: any) => c.id));
    expect(p2.nextCursor).toBeNull();
    expect(await head(s.client)).toBe(at);
  });

  it('misuse: unknown or another org’s decision, empty body, bad cursor, missing scope', async () => {
    const { s, staff, reader } = o;
    const d = await proposal(s, staff.key, 'pricing');
    const seq = await head(s.client);
    for (const id of [foreign.id, 'dec_nothere1']) {
      expect((await err(s, 'decision.comment', { decisionId: id, body: 'x' })).code).toBe('NOT_FOUND');
      expect((await err(s, 'decision.listComments', { decisionId: id })).code).toBe('NOT_FOUND');
    }
    expect((await err(s, 'decision.comment', { decisionId: d.id, body: '' })).message).toMatch(/^body: must be at least 1 character/);
    expect((await err(s, 'decision.listComments', { decisionId: d.id, cursor: 'nope' })).message).toBe('cursor: not a cursor this list returned');
    expect((await err(s, 'decision.comment', { decisionId: d.id, body: 'x' }, reader.key)).code).toBe('FORBIDDEN_SCOPE');
    expect((await rpc(s, 'decision.listComments', { decisionId: d.id }, reader.key)).body.ok).toBe(true);
    expect(await head(s.client)).toBe(seq);
  });
});

describe('decision.requestAdjustment', () => {
  it('a signatory or a decider blocks adoption; the requester’s own signature lifts it; others comment instead', async () => {
    const { s, staff, cfo, ceo, agent } = o;
    const d = await proposal(s, staff.key, 'pricing');
    const seq = await head(s.client);
    const adj = await ok(s, 'decision.requestAdjustment', { decisionId: d.id, version: 1, body: 'Not yet.' }, cfo.key);
    expect(adj).toMatchObject({ changed: true, decision: { status: 'adjustment_requested' }, comment: { kind: 'adjustment', author: cfo.id } });
    expect((await eventsAfter(s.client, seq))[0]).toMatchObject({
      kind: 'decision.adjustment.request',
      payload: { decisionId: d.id, commentId: adj.comment.id, version: 1, status: 'adjustment_requested' },
    });
    expect((await record(s, d.id)).requirements).toMatchObject({ openAdjustments: 1, ready: false });
    await ok(s, 'decision.requestAdjustment', { decisionId: d.id, version: 1, body: 'Me too.' }, ceo.key);

    // The CFO signs as it stands: their request stops blocking; the CEO's still does.
    expect((await ok(s, 'decision.sign', { decisionId: d.id, version: 1 }, cfo.key)).decision.status).toBe('adjustment_requested');
    expect((await record(s, d.id)).requirements.openAdjustments).toBe(1);
    await ok(s, 'decision.sign', { decisionId: d.id, version: 1 }, ceo.key);
    expect((await record(s, d.id)).decision.status).toBe('proposed');

    const before = await head(s.client);
    for (const who of [staff, agent]) {
      const e = await err(s, 'decision.requestAdjustment', { decisionId: d.id, version: 1, body: 'x' }, who.key);
      expect(e.code).toBe('CONFLICT');
      expect(e.message).toContain(`only a signatory (agree: ${cfo.id}) or a decider (decidedBy ${ceo.id})`);
    }
    // An admin decides anything (override), so it may block too.
    await ok(s, 'decision.requestAdjustment', { decisionId: d.id, version: 1, body: 'Admin says wait.' });
    expect(await head(s.client)).toBe(before + 1);
  });

  it('misuse: stale version, closed decision, another org’s id', async () => {
    const { s, staff, cfo, ceo } = o;
    const d = await proposal(s, staff.key, 'pricing');
    await ok(s, 'decision.propose', { decisionId: d.id, title: 'v2' }, staff.key);
    const seq = await head(s.client);
    const stale = await err(s, 'decision.requestAdjustment', { decisionId: d.id, version: 1, body: 'x' }, cfo.key);
    expect(stale.code).toBe('CONFLICT');
    expect(stale.message).toMatch(/version 1 of decision D-\d+ \(dec_\w+\) is stale: it is at version 2/);
    expect((await err(s, 'decision.requestAdjustment', { decisionId: d.id, version: 9, body: 'x' }, cfo.key)).message).toMatch(/is not proposed yet/);
    await ok(s, 'decision.sign', { decisionId: d.id, version: 2 }, cfo.key);
    await ok(s, 'decision.adopt', { decisionId: d.id, version: 2 }, ceo.key);
    const at = await head(s.client);
    const closed = await err(s, 'decision.requestAdjustment', { decisionId: d.id, version: 2, body: 'x' }, cfo.key);
    expect(closed.code).toBe('CONFLICT');
    expect(closed.message).toMatch(/is adopted, so it is closed to adjustment requests: revisit it with a new decision that supersedes it/);
    expect((await err(s, 'decision.requestAdjustment', { decisionId: foreign.id, version: 1, body: 'x' }, cfo.key)).code).toBe('NOT_FOUND');
    expect(await head(s.client)).toBe(at);
    expect(at).toBe(seq + 2);
  });
});
