import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, fileAndApprove, head, held, mutate, noop, ok, refused, rpc } from '../../helpers/calls.js';
import { appendEntry, cite, memOrg, type MemOrg } from './kit.js';

/** knowledge.append, search, invalidate, replace and rewrite: one event each, holds on verified entries for agents. */

let o: MemOrg;
beforeAll(async () => {
  o = await memOrg();
});
afterAll(() => o.s.close());

describe('knowledge.append', () => {
  it("records a human's entry verified, an agent's unverified; the event has ids and counts only", async () => {
    const { result, event } = await mutate(
      o.s,
      'knowledge.append',
      { body: 'Acme pays invoices on 45-day terms.', subjectIds: ['co_acme'], sources: cite },
      'knowledge.entry.append',
      { entityId: (r) => r.entry.id },
    );
    expect(result.entry).toMatchObject({ kind: 'fact', verified: true, verifiedBy: o.owner.id, status: 'active', revision: 1, subjectIds: ['co_acme'] });
    expect(result.changed).toBe(true);
    expect(event.payload).toEqual({ entryId: result.entry.id, kind: 'fact', verified: true, subjects: 1, sources: 1, possibleDuplicates: [] });
    const mine = await appendEntry(o, 'The Brisbane office closes at 17:00 on Fridays.', o.agent);
    expect(mine).toMatchObject({ verified: false, verifiedBy: null, authorId: o.agent.id });
  });

  it('agents must cite: BAD_REQUEST sources; humans need not', async () => {
    await refused(o.s, 'knowledge.append', { body: 'Uncited agent claim.' }, 'BAD_REQUEST', { key: o.agent.key, message: /^sources: an agent's entry cites/ });
    expect((await ok(o.s, 'knowledge.append', { body: 'A human note without a source.', kind: 'note' }, o.mia.key)).entry.sources).toEqual([]);
  });

  it('an exact duplicate (spacing aside) is the same entry, changed:false; near ones are possibleDuplicates', async () => {
    const first = await appendEntry(o, 'Invoices above ten thousand dollars need the CFO signature before payment.');
    const again = await noop(
      o.s,
      'knowledge.append',
      { body: '  Invoices above ten thousand dollars  need the CFO signature before payment. ', sources: cite },
      'knowledge.entry.append',
    );
    expect(again.entry.id).toBe(first.id);
    const near = await ok(o.s, 'knowledge.append', { body: 'Invoices above ten thousand dollars need the CFO signature before any payment.', sources: cite });
    expect(near.changed).toBe(true);
    expect(near.possibleDuplicates[0]).toMatchObject({ entryId: first.id });
  });

  it('bad input names the field; a reader key is refused; the idempotency key replays the stored frame', async () => {
    await refused(o.s, 'knowledge.append', { body: '' }, 'BAD_REQUEST', { message: /^body: / });
    await refused(o.s, 'knowledge.append', { body: 'x', sources: [{ kind: 'url' }] }, 'BAD_REQUEST', { message: /^sources\.0\.ref: required/ });
    await refused(o.s, 'knowledge.append', { body: 'x', colour: 'red' }, 'BAD_REQUEST', { message: /colour: unknown field/ });
    await refused(o.s, 'knowledge.append', { body: 'x', validFrom: '2026-01-02T00:00:00Z', validUntil: '2026-01-01T00:00:00Z' }, 'BAD_REQUEST', {
      message: /^validUntil: must be after validFrom/,
    });
    await refused(o.s, 'knowledge.append', { body: 'x'.repeat(4001) }, 'BAD_REQUEST', { message: /^body: must be at most 4000/ });
    await refused(o.s, 'knowledge.append', { body: 'Viewer fact' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key, message: /missing scope knowledge.write/ });
    const before = await head(o.s);
    const a = await rpc(o.s, 'knowledge.append', { body: 'Keyed fact about payroll cut-off.', sources: cite }, o.agent.key, 'kn-idem-1');
    const b = await rpc(o.s, 'knowledge.append', { body: 'Keyed fact about payroll cut-off.', sources: cite }, o.agent.key, 'kn-idem-1');
    expect(b.body).toEqual(a.body);
    expect((await eventsAfter(o.s, before)).length).toBe(1);
  });
});

describe('knowledge.search', () => {
  it('full text, M not I: an event with ids and revisions, never the query; the ks_ row keeps the text', async () => {
    const e = await appendEntry(o, 'Quarterly board meetings happen in the Sydney boardroom.');
    const { result, event } = await mutate(o.s, 'knowledge.search', { q: 'boardroom Sydney' }, 'knowledge.search.run', { key: o.agent.key });
    expect(result).toMatchObject({ mode: 'fulltext', note: null });
    expect(result.results.map((r: any) => r.entry.id)).toContain(e.id);
    expect(result.results[0].excerpt.some((s: any) => s.match)).toBe(true);
    expect(event.payload).toEqual({
      searchId: result.searchId,
      mode: 'fulltext',
      asked: 'fulltext',
      asOf: null,
      count: result.results.length,
      results: result.results.map((r: any) => ({ entryId: r.entry.id, revision: 1, matched: 'text' })),
    });
    expect(JSON.stringify(event)).not.toMatch(/boardroom/i);
    const [row] = await o.s.runtime.db.query<{ query: string; actor_id: string }>(
      'SELECT query, actor_id FROM knowledge_searches WHERE org_id = $1 AND search_id = $2',
      [o.s.org.orgId, result.searchId],
    );
    expect(row).toEqual({ query: 'boardroom Sydney', actor_id: o.agent.id });
    // Not idempotent: the same key runs it again, a second event.
    const before = await head(o.s);
    await rpc(o.s, 'knowledge.search', { q: 'boardroom' }, o.agent.key, 'ks-key');
    await rpc(o.s, 'knowledge.search', { q: 'boardroom' }, o.agent.key, 'ks-key');
    expect((await eventsAfter(o.s, before)).map((x) => x.kind)).toEqual(['knowledge.search.run', 'knowledge.search.run']);
  });

  it('hybrid without an embedding endpoint runs full text and says so; by subject, by id; unknown or other-org ids: NOT_FOUND', async () => {
    const e = await appendEntry(o, 'Globex prefers calls before 10am Berlin time.', o.owner, { subjectIds: ['co_globex'] });
    const hybrid = await ok(o.s, 'knowledge.search', { q: 'Globex calls', mode: 'hybrid' });
    expect(hybrid.mode).toBe('fulltext');
    expect(hybrid.note).toMatch(/no embedding model is configured \(AI_EMBED_MODEL\), so this search ran full text only/);
    expect((await ok(o.s, 'knowledge.search', { subjectIds: ['co_globex'] })).results.map((r: any) => r.entry.id)).toEqual([e.id]);
    expect((await ok(o.s, 'knowledge.search', { entryIds: [e.id] })).results[0]).toMatchObject({ matched: 'filter', entry: { id: e.id } });
    await refused(o.s, 'knowledge.search', { entryIds: ['kn_nosuch'] }, 'NOT_FOUND');
    await refused(o.other, 'knowledge.search', { entryIds: [e.id] }, 'NOT_FOUND');
    await refused(o.s, 'knowledge.search', { q: 'x' }, 'FORBIDDEN_SCOPE', { key: o.noKnowledge.key });
    await refused(o.s, 'knowledge.search', { limit: 51 }, 'BAD_REQUEST', { message: /^limit: must be at most 50/ });
  });
});

describe('knowledge.invalidate', () => {
  it('closes the entry, reports who was served it; again: changed:false; an agent on a verified entry holds', async () => {
    const e = await appendEntry(o, 'The VPN password rotates every 30 days.', o.agent);
    await ok(o.s, 'knowledge.search', { q: 'VPN password rotates' }, o.agent2.key);
    await ok(o.s, 'knowledge.search', { entryIds: [e.id] }, o.mia.key);
    const { result, event } = await mutate(o.s, 'knowledge.invalidate', { entryId: e.id, reason: 'wrong' }, 'knowledge.entry.invalidate', { key: o.agent.key });
    expect(result.entry).toMatchObject({ status: 'invalidated', invalidatedReason: 'wrong' });
    expect(result.servedTo.map((x: any) => x.principalId).sort()).toEqual([o.agent2.id, o.mia.id].sort());
    expect(event.payload).toMatchObject({ entryId: e.id, reason: 'wrong', servedTo: 2, servedSearches: 2 });
    await noop(o.s, 'knowledge.invalidate', { entryId: e.id, reason: 'wrong' }, 'knowledge.entry.invalidate');
    expect((await ok(o.s, 'knowledge.search', { q: 'VPN password' })).results.map((r: any) => r.entry.id)).not.toContain(e.id);

    const verified = await appendEntry(o, 'The office alarm code changes on the first Monday.');
    const approval = await held(
      o.s,
      'knowledge.invalidate',
      { entryId: verified.id, reason: 'outdated' },
      { key: o.agent.key, holdKind: 'knowledge.signature.hold' },
    );
    expect(approval).toMatchObject({ actionClass: 'knowledge.invalidate', subject: { kind: 'knowledge.signature', subjectId: verified.id } });
    const approvalId = await fileAndApprove(o.s, approval, { requester: o.agent.key });
    const done = await mutate(o.s, 'knowledge.invalidate', { entryId: verified.id, reason: 'outdated', approvalId }, 'knowledge.entry.invalidate', {
      key: o.agent.key,
    });
    expect(done.event.payload.approvalId).toBe(approvalId);
    await refused(o.s, 'knowledge.invalidate', { entryId: 'kn_nosuch', reason: 'wrong' }, 'NOT_FOUND');
    await refused(o.other, 'knowledge.invalidate', { entryId: e.id, reason: 'wrong' }, 'NOT_FOUND');
    await refused(o.s, 'knowledge.invalidate', { entryId: e.id, reason: 'boring' }, 'BAD_REQUEST', { message: /^reason: must be one of/ });
    await refused(o.s, 'knowledge.invalidate', { entryId: e.id, reason: 'wrong' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('knowledge.replace', () => {
  it('closes the old at the new validFrom and links both; a closed entry: CONFLICT naming the successor', async () => {
    const old = await appendEntry(o, 'Support hours are 9 to 5 Sydney time.', o.owner, { validFrom: '2026-01-01T00:00:00Z' });
    const { result, event } = await mutate(
      o.s,
      'knowledge.replace',
      { entryId: old.id, body: 'Support hours are 8 to 6 Sydney time.', sources: cite, validFrom: '2026-03-01T00:00:00Z' },
      'knowledge.entry.replace',
      { entityId: (r) => r.entry.id },
    );
    expect(result.replaced).toMatchObject({ id: old.id, status: 'superseded', supersededBy: result.entry.id, validUntil: '2026-03-01T00:00:00.000Z' });
    expect(result.entry).toMatchObject({ supersedes: old.id, validFrom: '2026-03-01T00:00:00.000Z', verified: true });
    expect(event.payload).toMatchObject({ entryId: result.entry.id, replacedId: old.id });
    const message = await refused(o.s, 'knowledge.replace', { entryId: old.id, body: 'Again', sources: cite }, 'CONFLICT');
    expect(message).toContain(`superseded by ${result.entry.id}`);
    await refused(o.s, 'knowledge.replace', { entryId: result.entry.id, body: 'Earlier', sources: cite, validFrom: '2025-01-01T00:00:00Z' }, 'BAD_REQUEST', {
      message: /^validFrom: must be after/,
    });
    await refused(o.s, 'knowledge.replace', { entryId: result.entry.id, body: 'No source' }, 'BAD_REQUEST', { key: o.agent.key, message: /^sources: / });
    await refused(o.other, 'knowledge.replace', { entryId: old.id, body: 'x', sources: cite }, 'NOT_FOUND');
  });
});

describe('knowledge.rewrite', () => {
  it('rewords as revision+1; ifRevision stale: CONFLICT; an agent verify: FORBIDDEN_SCOPE; a human verifies', async () => {
    const e = await appendEntry(o, 'Expense claims go in by the 25th.', o.agent);
    const { result } = await mutate(
      o.s,
      'knowledge.rewrite',
      { entryId: e.id, body: 'Expense claims are due by the 25th.', ifRevision: 1 },
      'knowledge.entry.rewrite',
      {
        key: o.agent.key,
      },
    );
    expect(result.entry).toMatchObject({ revision: 2, verified: false, body: 'Expense claims are due by the 25th.' });
    await refused(o.s, 'knowledge.rewrite', { entryId: e.id, body: 'Other', ifRevision: 1 }, 'CONFLICT', { message: /at revision 2, not 1/ });
    await refused(o.s, 'knowledge.rewrite', { entryId: e.id, verify: true }, 'FORBIDDEN_SCOPE', { key: o.agent.key, message: /^missing role human on kn_/ });
    const verified = await mutate(o.s, 'knowledge.rewrite', { entryId: e.id, verify: true }, 'knowledge.entry.rewrite', { key: o.mia.key });
    expect(verified.result.entry).toMatchObject({ verified: true, verifiedBy: o.mia.id, revision: 3 });
    await noop(o.s, 'knowledge.rewrite', { entryId: e.id, verify: true }, 'knowledge.entry.rewrite', o.mia.key);
    // Now verified: the agent's rewording holds for a human.
    await held(o.s, 'knowledge.rewrite', { entryId: e.id, body: 'Claims: 25th.' }, { key: o.agent.key, holdKind: 'knowledge.signature.hold' });
    await refused(o.s, 'knowledge.rewrite', { entryId: e.id }, 'BAD_REQUEST', { message: /^body: required unless verify/ });
    await refused(o.other, 'knowledge.rewrite', { entryId: e.id, body: 'x' }, 'NOT_FOUND');
  });
});
