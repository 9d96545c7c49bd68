import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, fileAndApprove, head, held, mutate, ok } from '../../helpers/calls.js';
import { DATABASE_URL, testServer } from '../../helpers/harness.js';
import { freshDatabase } from '../../multiprocess/harness.js';
import { until } from '../../jobs/kit.js';
import { appendEntry, cite, memOrg, type MemOrg } from './kit.js';

/*
 * Acceptance scenario 4 of the design with no embedding model configured: on PostgreSQL and on PGlite alike the
 * search answers mode fulltext (its vector part, with a model: hybrid.test.ts). Then the 30-day erasure of query
 * texts, run by its job.
 */

let o: MemOrg;
beforeAll(async () => {
  o = await memOrg();
});
afterAll(() => o.s.close());

describe('scenario 4: knowledge', () => {
  it('append; search (no text in the event); a human replaces; asOf shows the old; an agent’s invalidate holds; servedTo counts', async () => {
    const first = await appendEntry(o, 'Our payment terms with Initech are 60 days.', o.agent, {
      subjectIds: ['co_initech'],
      validFrom: '2026-01-01T00:00:00Z',
    });
    expect(first.verified).toBe(false);
    const searched = await mutate(o.s, 'knowledge.search', { q: 'Initech payment terms', mode: 'hybrid' }, 'knowledge.search.run', { key: o.agent2.key });
    expect(searched.result.mode).toBe('fulltext');
    expect(searched.result.results.map((r: any) => r.entry.id)).toEqual([first.id]);
    expect(JSON.stringify(searched.event.payload)).not.toMatch(/initech|payment/i);
    expect(searched.event.payload).toMatchObject({ count: 1, results: [{ entryId: first.id, revision: 1 }] });

    const replaced = await mutate(
      o.s,
      'knowledge.replace',
      { entryId: first.id, body: 'Our payment terms with Initech are 30 days from 1 March.', sources: cite, validFrom: '2026-03-01T00:00:00Z' },
      'knowledge.entry.replace',
      { key: o.mia.key },
    );
    const second = replaced.result.entry;
    expect(second.verified).toBe(true);
    const now = await ok(o.s, 'knowledge.search', { q: 'Initech payment terms' }, o.agent2.key);
    expect(now.results.map((r: any) => r.entry.id)).toEqual([second.id]);
    const then = await ok(o.s, 'knowledge.search', { q: 'Initech payment terms', asOf: '2026-02-01T00:00:00Z' }, o.agent2.key);
    expect(then.results.map((r: any) => r.entry.id)).toEqual([first.id]);
    expect(then.results[0].entry).toMatchObject({ status: 'superseded', supersededBy: second.id });

    // The human's entry is verified: an agent invalidating it holds for a human, then goes through with the proof.
    const approval = await held(
      o.s,
      'knowledge.invalidate',
      { entryId: second.id, reason: 'wrong' },
      { key: o.agent.key, holdKind: 'knowledge.signature.hold' },
    );
    const approvalId = await fileAndApprove(o.s, approval, { requester: o.agent.key });
    const done = await mutate(o.s, 'knowledge.invalidate', { entryId: second.id, reason: 'wrong', approvalId }, 'knowledge.entry.invalidate', {
      key: o.agent.key,
    });
    expect(done.result.servedTo).toEqual([expect.objectContaining({ principalId: o.agent2.id, searches: 1, revisions: [1] })]);
    expect(done.event.payload).toMatchObject({ servedTo: 1, servedSearches: 1, approvalId });
    expect((await ok(o.s, 'knowledge.search', { q: 'Initech payment terms' })).results).toEqual([]);
  });

  it('bad inputs write nothing: unknown field, limit 51, other org’s id, a reader key writing', async () => {
    const before = await head(o.s);
    for (const [params, key, code] of [
      [{ q: 'x', colour: 1 }, undefined, 'BAD_REQUEST'],
      [{ q: 'x', limit: 51 }, undefined, 'BAD_REQUEST'],
    ] as const) {
      expect((await o.s.client.rpc('knowledge.search', params, { key })).body.error.code).toBe(code);
    }
    expect((await o.other.rpc('knowledge.rewrite', { entryId: (await appendEntry(o, 'Other org probe entry.')).id, body: 'x' })).body.error.code).toBe(
      'NOT_FOUND',
    );
    expect((await o.s.client.rpc('knowledge.append', { body: 'x' }, { key: o.viewer.key })).body.error.code).toBe('FORBIDDEN_SCOPE');
    expect((await eventsAfter(o.s, before)).map((e) => e.kind)).toEqual(['knowledge.entry.append']);
  });
});

describe('query erasure', () => {
  it('the knowledge.eraseQuery job erases the text after the retention, by a system event naming the search', async () => {
    const fresh = DATABASE_URL ? await freshDatabase(DATABASE_URL, 'wops_knowledge') : undefined;
    const s = await testServer({ ...(fresh ? { databaseUrl: fresh.url } : { inMemory: true }), config: { knowledgeQueryRetentionMs: 1000 } });
    try {
      await s.runtime.deps.jobs.startWorkers({ pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1 });
      await ok(s, 'knowledge.append', { body: 'Retention probe about the Perth warehouse.' });
      const { searchId } = await ok(s, 'knowledge.search', { q: 'Perth warehouse' });
      const row = () =>
        s.runtime.db.query<{ query: string | null; erased_at: unknown }>(
          'SELECT query, erased_at FROM knowledge_searches WHERE org_id = $1 AND search_id = $2',
          [s.org.orgId, searchId],
        );
      expect((await row())[0]?.query).toBe('Perth warehouse');
      await until('the erasure', async () => ((await row())[0]?.query === null ? true : undefined));
      const events = await eventsAfter(s, 0);
      const erase = events.find((e) => e.kind === 'knowledge.search.erase');
      expect(erase).toMatchObject({ actor: '', entity_id: searchId, payload: { searchId } });
      expect(erase.payload.causeSeq).toBe(events.find((e) => e.kind === 'knowledge.search.run').seq);
    } finally {
      await s.close();
      await fresh?.drop();
    }
  });
});
