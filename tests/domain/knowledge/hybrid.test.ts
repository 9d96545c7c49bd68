import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../db/types.js';
import { backfillEmbeddings } from '../../../domain/knowledge/vectors.js';
import { eventsAfter, head, mutate, ok } from '../../helpers/calls.js';
import { onPostgres, testServer, type TestServer } from '../../helpers/harness.js';
import { person, type Person } from '../../helpers/people.js';
import { until } from '../../jobs/kit.js';
import { embedServer, type EmbedServer } from './embed-server.js';
import { cite } from './kit.js';

/*
 * Hybrid search (scenario 4, its vector part) against the loopback embeddings server. On PGlite the runtime loads
 * pgvector (an embedding model is configured), so a paraphrase sharing no word with an entry finds it by meaning;
 * on PostgreSQL 15 without pgvector the same call runs full text and says so, spending nothing on embeddings.
 */

const vectors = !onPostgres;
const BRISBANE = 'The Brisbane office closes early on Fridays.';
const PARAPHRASE = 'When does the Queensland branch shut before the weekend?';

let es: EmbedServer;
let s: TestServer;
let agent: Person;
beforeAll(async () => {
  es = await embedServer();
  s = await testServer({ ai: { embed: es.settings }, ...(onPostgres ? {} : { inMemory: true }) });
  await s.runtime.deps.jobs.startWorkers({ pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1 });
  agent = await person(s, 'Agent K', { tier: 'agent' });
});
afterAll(async () => {
  await s.close();
  await es.close();
});

const append = async (body: string, extra: Record<string, unknown> = {}) => (await ok(s, 'knowledge.append', { body, sources: cite, ...extra })).entry;
const hybrid = (q: string, extra: Record<string, unknown> = {}) => ok(s, 'knowledge.search', { q, mode: 'hybrid', ...extra }, agent.key);
const ids = (r: { results: { entry: { id: string } }[] }) => r.results.map((x) => x.entry.id);

/** The revision of the entry's current words once the job has embedded them. */
const embedded = (entryId: string) =>
  until(`the embedding of ${entryId}`, async () => {
    const [row] = await s.runtime.db.query<{ revision: number }>(
      `SELECT k.revision FROM knowledge_embeddings k JOIN knowledge_entries e ON e.org_id = k.org_id AND e.entry_id = k.entry_id
        WHERE k.org_id = $1 AND k.entry_id = $2 AND k.body_hash = e.body_hash`,
      [s.org.orgId, entryId],
    );
    return row ? Number(row.revision) : undefined;
  });

const audits = (method: string) =>
  s.runtime.db.query<{ verdict: string; record: string }>(`SELECT verdict, record FROM ai_audit WHERE org_id = $1 AND method = $2 ORDER BY seq`, [
    s.org.orgId,
    method,
  ]);

describe('scenario 4: hybrid search', () => {
  it(
    vectors ? 'a paraphrase with no shared word finds the entry, matched: vector' : 'PostgreSQL 15 without pgvector: mode fulltext, said, nothing embedded',
    async () => {
      const entry = await append(BRISBANE);
      if (vectors) expect(await embedded(entry.id)).toBe(1);
      expect(ids(await ok(s, 'knowledge.search', { q: PARAPHRASE }))).toEqual([]); // no word in common
      const { result, event } = await mutate(s, 'knowledge.search', { q: PARAPHRASE, mode: 'hybrid' }, 'knowledge.search.run', { key: agent.key });
      expect(JSON.stringify(event.payload)).not.toMatch(/queensland|branch|weekend/i);
      if (!vectors) {
        expect(result).toMatchObject({ mode: 'fulltext', results: [] });
        expect(result.note).toMatch(/no vector extension.*full text only/);
        expect(event.payload).toMatchObject({ mode: 'fulltext', asked: 'hybrid', count: 0 });
        expect(es.requests).toBe(0);
        return;
      }
      expect(result).toMatchObject({ mode: 'hybrid', note: null });
      expect(result.results.map((r: any) => [r.entry.id, r.matched])).toEqual([[entry.id, 'vector']]);
      expect(event.payload).toMatchObject({ mode: 'hybrid', asked: 'hybrid', count: 1, results: [{ entryId: entry.id, revision: 1, matched: 'vector' }] });
      // The query's embedding was budgeted and audited like any model call, with no text in the record.
      const [audit] = await audits('knowledge.search');
      expect(audit?.verdict).toBe('embedded');
      expect(audit?.record).not.toMatch(/queensland/i);
      expect((await audits('knowledge.embed')).map((a) => a.verdict)).toEqual(['embedded']);
    },
  );

  it('words and meaning together: matched both; the fused score ranks it first', async () => {
    const r = await hybrid('Brisbane office');
    expect(r.results[0]).toMatchObject({ entry: { body: BRISBANE }, matched: vectors ? 'both' : 'text' });
    expect(r.mode).toBe(vectors ? 'hybrid' : 'fulltext');
  });
});

describe.skipIf(!vectors)('embeddings follow the entries', () => {
  it('the job embeds after the commit, appending no event; a rewrite re-embeds, a verification does not', async () => {
    const before = await head(s);
    const { result } = await mutate(s, 'knowledge.append', { body: 'Staff parking is in the basement garage.', sources: cite }, 'knowledge.entry.append', {
      key: agent.key,
    });
    const entry = result.entry;
    expect(await embedded(entry.id)).toBe(1);
    expect((await eventsAfter(s, before)).map((e) => e.kind)).toEqual(['knowledge.entry.append']);
    expect(ids(await hybrid('Where is the carpark?'))).toEqual([entry.id]);

    await ok(s, 'knowledge.rewrite', { entryId: entry.id, body: 'Visitors collect a pass card at the front desk.' }, agent.key);
    expect(await embedded(entry.id)).toBe(2);
    expect(ids(await hybrid('Where is the carpark?'))).toEqual([]);
    expect(ids(await hybrid('Who hands out a badge?'))).toEqual([entry.id]);

    const sent = es.texts.length;
    await ok(s, 'knowledge.rewrite', { entryId: entry.id, verify: true }); // revision 3, the same words
    const [row] = await s.runtime.db.query<{ revision: number }>('SELECT revision FROM knowledge_embeddings WHERE org_id = $1 AND entry_id = $2', [
      s.org.orgId,
      entry.id,
    ]);
    expect(Number(row?.revision)).toBe(2);
    expect(ids(await hybrid('Who hands out a badge?'))).toEqual([entry.id]);
    expect(es.texts.slice(sent)).toEqual(['Who hands out a badge?']); // only the query was embedded
  });

  it('vector hits obey validity: not yet valid, replaced (asOf shows the old), invalidated: never served', async () => {
    const later = await append('The Melbourne site shuts early on Fridays from next year.', { validFrom: '2099-01-01T00:00:00Z' });
    const old = await append('Acme pays invoices on 45 day terms.', { validFrom: '2026-01-01T00:00:00Z' });
    await Promise.all([embedded(later.id), embedded(old.id)]);
    expect(ids(await hybrid('Does the Melbourne branch close before the weekend?'))).not.toContain(later.id);
    expect(ids(await hybrid('Does the Melbourne branch close before the weekend?', { asOf: '2099-06-01T00:00:00Z' }))).toContain(later.id);

    const replaced = await ok(s, 'knowledge.replace', {
      entryId: old.id,
      body: 'Acme settles its bills within 30 days from March.',
      sources: cite,
      validFrom: '2026-03-01T00:00:00Z',
    });
    const next = replaced.entry;
    await embedded(next.id);
    const question = 'When are bills paid?';
    expect(ids(await hybrid(question))).toEqual([next.id]);
    expect(ids(await hybrid(question, { asOf: '2026-02-01T00:00:00Z' }))).toEqual([old.id]);

    await ok(s, 'knowledge.invalidate', { entryId: next.id, reason: 'wrong' });
    const after = await hybrid(question);
    expect(after.mode).toBe('hybrid');
    expect(ids(after)).toEqual([]);
  });

  it('endpoint down, too slow, or the budget spent: full text, said', async () => {
    const words = 'Brisbane office';
    try {
      es.mode = 'down';
      let r = await hybrid(words);
      expect(r).toMatchObject({ mode: 'fulltext', results: [{ matched: 'text' }] });
      expect(r.note).toMatch(/HTTP 503.*full text only/);
      es.mode = 'slow';
      es.settings.timeoutMs = 300; // generous elsewhere: a loaded machine must not time out the other tests
      r = await hybrid(words);
      expect(r.mode).toBe('fulltext');
      expect(r.note).toMatch(/timed out \(300 ms\)/);
      expect((await audits('knowledge.search')).slice(-2).map((a) => a.verdict)).toEqual(['provider_error', 'timeout']);
    } finally {
      es.mode = 'ok';
      es.settings.timeoutMs = 5000;
    }
    await s.runtime.db.query(
      `INSERT INTO ai_settings (org_id, monthly_budget_micro_usd) VALUES ($1, 0) ON CONFLICT (org_id) DO UPDATE SET monthly_budget_micro_usd = 0`,
      [s.org.orgId],
    );
    try {
      const r = await hybrid(words);
      expect(r.mode).toBe('fulltext');
      expect(r.note).toMatch(/monthly AI budget of \$0.00 is spent/);
    } finally {
      await s.runtime.db.query('UPDATE ai_settings SET monthly_budget_micro_usd = NULL WHERE org_id = $1', [s.org.orgId]);
    }
    expect((await hybrid(words)).mode).toBe('hybrid');
  });

  it('an entry left without a current embedding (its job gave up) is embedded by the start-up backfill', async () => {
    const entry = await append('Decision: the Brisbane branch shuts at noon on Fridays in December.');
    expect(await embedded(entry.id)).toBe(1);
    await s.runtime.db.query('DELETE FROM knowledge_embeddings WHERE org_id = $1 AND entry_id = $2', [s.org.orgId, entry.id]);
    expect(await backfillEmbeddings.run(s.runtime.deps)).toBeGreaterThanOrEqual(1);
    expect(await embedded(entry.id)).toBe(1);
    expect(await backfillEmbeddings.run(s.runtime.deps)).toBe(0);
  });
});

describe('a meeting’s decisions', () => {
  it('meetings.record queues the embedding of each new decision, as knowledge.append does (embedded where vectors run)', async () => {
    const when = (h: string) => ({ dateTime: `2026-11-02T${h}:00:00`, timeZone: 'Europe/Berlin' });
    const { event } = await ok(s, 'calendar.create', { title: 'Branch hours', start: when('09'), end: when('10'), notify: 'none' });
    const decision = 'Bills are paid on Fridays.';
    const { entryIds } = await ok(s, 'meetings.record', { eventId: event.id, notes: 'Depot hours.', decisions: [decision] });
    expect(entryIds).toHaveLength(1);
    const queued = one(
      await s.runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'knowledge.embed' AND data#>>'{data,entryId}' = $1`, [
        entryIds[0],
      ]),
    );
    expect(queued.n).toBe(1);
    if (!vectors) return;
    expect(await embedded(entryIds[0])).toBe(1); // by its own job: no start-up backfill ran
    expect(es.texts).toContain(decision);
    // Found by meaning: the question shares no word with the decision.
    const found = (await hybrid('When does Acme settle invoices each week?')).results.find((r: any) => r.entry.id === entryIds[0]);
    expect(found?.matched).toBe('vector');
  });
});
