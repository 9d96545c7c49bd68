import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../db/types.js';
import { verifyInSegments, verifyOrgChain } from '../../ledger/verify.js';
import { canonicalJson, computeRowHash } from '../../protocol/hashing.js';
import { DATABASE_URL, freshOrg, onPostgres, TestClient, testServer, type TestOrg, type TestServer } from '../helpers/harness.js';
import { eventCount, headOf, tamper } from '../helpers/ledger.js';

/**
 * Streaming verify over the stored chain (ledger/verify.ts). Tampering needs the append-only trigger
 * disabled; tests/helpers/ledger.ts `tamper` does that inside one transaction that re-enables it.
 */
let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

/** An org with n real events (settings.renameApiKey through the HTTP face). */
async function orgWithEvents(n: number): Promise<TestOrg> {
  const org = await freshOrg(s.runtime, 'ver');
  const client = new TestClient(s.app, org.adminKey);
  for (let i = 1; i <= n; i++) await client.ok('settings.renameApiKey', { keyId: org.adminKeyId, name: `name ${i} ü` });
  return org;
}

describe('verifyOrgChain', () => {
  it('passes a real chain, also page by page, and reports its head', async () => {
    const org = await orgWithEvents(12);
    const head = await headOf(s.runtime.db, org.orgId);
    expect(head.seq).toBe(12);
    expect(await verifyOrgChain(s.runtime.db, org.orgId)).toEqual({ ok: true, count: 12, head });
    const progress: number[] = [];
    const paged = await verifyOrgChain(s.runtime.db, org.orgId, { pageSize: 5, onProgress: (p) => progress.push(p.seq) });
    expect(paged).toEqual({ ok: true, count: 12, head });
    expect(progress).toEqual([5, 10]);
  });

  it('passes an empty chain', async () => {
    const org = await freshOrg(s.runtime, 'ver');
    expect(await verifyOrgChain(s.runtime.db, org.orgId)).toEqual({ ok: true, count: 0, head: { seq: 0, rowHash: '' } });
  });

  it('the append-only trigger refuses UPDATE and DELETE of events', async () => {
    const org = await orgWithEvents(2);
    await expect(s.runtime.db.query(`UPDATE events SET payload = '{}' WHERE org_id = $1 AND seq = 1`, [org.orgId])).rejects.toThrow(/append-only/);
    await expect(s.runtime.db.query('DELETE FROM events WHERE org_id = $1 AND seq = 2', [org.orgId])).rejects.toThrow(/append-only/);
    expect(await eventCount(s.runtime.db, org.orgId)).toBe(2);
    expect((await verifyOrgChain(s.runtime.db, org.orgId)).ok).toBe(true);
  });

  it('an edited payload is a broken row at that seq', async () => {
    const org = await orgWithEvents(8);
    await tamper(s.runtime, async (q) => {
      await q.query(`UPDATE events SET payload = '{"keyId":"key_x","name":"forged"}' WHERE org_id = $1 AND seq = 5`, [org.orgId]);
    });
    const v = await verifyOrgChain(s.runtime.db, org.orgId, { pageSize: 3 });
    expect(v).toMatchObject({ ok: false, count: 4, break: { seq: 5, kind: 'row_hash' } });
    // The trigger is back on.
    await expect(s.runtime.db.query('DELETE FROM events WHERE org_id = $1', [org.orgId])).rejects.toThrow(/append-only/);
  });

  it('an edited row_hash with a fixed-up next link is still a broken row at that seq', async () => {
    const org = await orgWithEvents(6);
    const forged = 'f'.repeat(64);
    await tamper(s.runtime, async (q) => {
      await q.query('UPDATE events SET row_hash = $2 WHERE org_id = $1 AND seq = 3', [org.orgId, forged]);
      await q.query('UPDATE events SET prev_hash = $2 WHERE org_id = $1 AND seq = 4', [org.orgId, forged]);
    });
    expect(await verifyOrgChain(s.runtime.db, org.orgId)).toMatchObject({ ok: false, count: 2, break: { seq: 3, kind: 'row_hash' } });
  });

  it('an edited prev_hash is a broken link at that seq', async () => {
    const org = await orgWithEvents(6);
    await tamper(s.runtime, async (q) => {
      await q.query(`UPDATE events SET prev_hash = 'abc' WHERE org_id = $1 AND seq = 4`, [org.orgId]);
    });
    expect(await verifyOrgChain(s.runtime.db, org.orgId)).toMatchObject({ ok: false, count: 3, break: { seq: 4, kind: 'prev_hash' } });
  });

  it('a deleted row is a gap at that seq', async () => {
    const org = await orgWithEvents(8);
    await tamper(s.runtime, async (q) => {
      await q.query('DELETE FROM events WHERE org_id = $1 AND seq = 6', [org.orgId]);
    });
    const v = await verifyOrgChain(s.runtime.db, org.orgId, { pageSize: 4 });
    expect(v).toMatchObject({ ok: false, count: 5, break: { seq: 6, kind: 'gap' } });
  });

  it('a deleted first row is a gap at seq 1', async () => {
    const org = await orgWithEvents(3);
    await tamper(s.runtime, async (q) => {
      await q.query('DELETE FROM events WHERE org_id = $1 AND seq = 1', [org.orgId]);
    });
    expect(await verifyOrgChain(s.runtime.db, org.orgId)).toMatchObject({ ok: false, count: 0, break: { seq: 1, kind: 'gap' } });
  });

  it('a deleted last row is reported: the head disagrees', async () => {
    const org = await orgWithEvents(7);
    await tamper(s.runtime, async (q) => {
      await q.query('DELETE FROM events WHERE org_id = $1 AND seq = 7', [org.orgId]);
    });
    const v = await verifyOrgChain(s.runtime.db, org.orgId);
    expect(v).toMatchObject({ ok: false, count: 6, break: { seq: 7 } });
    expect(!v.ok && v.break.message).toMatch(/head/);
  });

  it('a truncated tail exactly at a page boundary is reported too', async () => {
    const org = await orgWithEvents(5);
    await tamper(s.runtime, async (q) => {
      await q.query('DELETE FROM events WHERE org_id = $1 AND seq = 5', [org.orgId]);
    });
    expect(await verifyOrgChain(s.runtime.db, org.orgId, { pageSize: 4 })).toMatchObject({ ok: false, count: 4, break: { seq: 5 } });
  });

  it('a last row rewritten with a consistent hash is caught by the head, at that seq', async () => {
    const org = await orgWithEvents(4);
    const [last] = await s.runtime.db.query<any>('SELECT * FROM events WHERE org_id = $1 AND seq = 4', [org.orgId]);
    const payload = { keyId: org.adminKeyId, name: 'forged but consistent' };
    const forged = computeRowHash(last.prev_hash, { ...last, payload });
    await tamper(s.runtime, async (q) => {
      await q.query('UPDATE events SET payload = $2, row_hash = $3 WHERE org_id = $1 AND seq = 4', [org.orgId, canonicalJson(payload), forged]);
    });
    const v = await verifyOrgChain(s.runtime.db, org.orgId);
    expect(v).toMatchObject({ ok: false, count: 4, break: { seq: 4, kind: 'row_hash' } });
  });

  it("a row appended behind the head's back is reported at the first seq past the head", async () => {
    const org = await orgWithEvents(3);
    const head = await headOf(s.runtime.db, org.orgId);
    const e = { seq: 4, family: 'org', kind: 'org.key.renamed', entity_id: '', actor: '', at: new Date().toISOString(), payload: { forged: true } };
    const rowHash = computeRowHash(head.rowHash, e);
    // INSERT is not refused by the trigger: the head row is what catches it.
    await s.runtime.db.query(
      `INSERT INTO events (org_id, seq, family, kind, entity_id, actor, at, payload, prev_hash, row_hash) VALUES ($1, 4, $2, $3, '', '', $4, $5, $6, $7)`,
      [org.orgId, e.family, e.kind, e.at, canonicalJson(e.payload), head.rowHash, rowHash],
    );
    const v = await verifyOrgChain(s.runtime.db, org.orgId);
    expect(v).toMatchObject({ ok: false, count: 4, break: { seq: 4 } });
    expect(!v.ok && v.break.message).toMatch(/head/);
  });

  it('tampering one org leaves another org verifying', async () => {
    const a = await orgWithEvents(3);
    const b = await orgWithEvents(3);
    await tamper(s.runtime, async (q) => {
      await q.query(`UPDATE events SET actor = 'usr_mallory' WHERE org_id = $1 AND seq = 2`, [a.orgId]);
    });
    expect(await verifyOrgChain(s.runtime.db, a.orgId)).toMatchObject({ ok: false, break: { seq: 2, kind: 'row_hash' } });
    expect((await verifyOrgChain(s.runtime.db, b.orgId)).ok).toBe(true);
  });
});

describe.skipIf(!onPostgres)('verifyOrgChain in parallel segments (PostgreSQL only: skipped on PGlite)', () => {
  const parallel = { databaseUrl: DATABASE_URL as string, threads: 3, minEvents: 1 };
  const bothWays = async (orgId: string) => {
    const sequential = await verifyOrgChain(s.runtime.db, orgId, { pageSize: 2 });
    expect(await verifyOrgChain(s.runtime.db, orgId, { pageSize: 2, parallel })).toEqual(sequential);
    return sequential;
  };

  it('segments an intact chain on worker threads and agrees with the sequential walk', async () => {
    const org = await orgWithEvents(13);
    const head = await headOf(s.runtime.db, org.orgId);
    // The fast path itself: segments (0,4], (4,10], (10,13], two of them on workers.
    const progress: number[] = [];
    expect(await verifyInSegments(s.runtime.db, org.orgId, 2, parallel, (p) => progress.push(p.verified))).toEqual(head);
    expect(progress.at(-1)).toBe(12);
    expect(await bothWays(org.orgId)).toEqual({ ok: true, count: 13, head });
  });

  it('falls back to the sequential verdict on a broken row, link, gap or tail in any segment', async () => {
    const cases: [string, (q: Queryable, orgId: string) => Promise<unknown>, object][] = [
      [
        'row in the second segment',
        (q, id) => q.query(`UPDATE events SET payload = '{"forged":true}' WHERE org_id = $1 AND seq = 7`, [id]),
        { count: 6, break: { seq: 7, kind: 'row_hash' } },
      ],
      [
        'link at a segment boundary',
        (q, id) => q.query(`UPDATE events SET prev_hash = 'abc' WHERE org_id = $1 AND seq = 5`, [id]),
        { count: 4, break: { seq: 5, kind: 'prev_hash' } },
      ],
      [
        'row before a segment boundary',
        (q, id) => q.query('DELETE FROM events WHERE org_id = $1 AND seq = 4', [id]),
        { count: 3, break: { seq: 4, kind: 'gap' } },
      ],
      ['tail', (q, id) => q.query('DELETE FROM events WHERE org_id = $1 AND seq = 13', [id]), { count: 12, break: { seq: 13 } }],
    ];
    for (const [, edit, expected] of cases) {
      const org = await orgWithEvents(13);
      await tamper(s.runtime, (q) => edit(q, org.orgId).then(() => undefined));
      expect(await verifyInSegments(s.runtime.db, org.orgId, 2, parallel)).toBeUndefined();
      expect(await bothWays(org.orgId)).toMatchObject({ ok: false, ...expected });
    }
  });

  it('walks with binary COPY statements of 25 pages, and across their boundaries agrees with the paged walk', async () => {
    // threads: 1 walks on this thread alone, with COPY; pageSize 1 starts a new statement every 25 rows.
    const copy = { databaseUrl: DATABASE_URL as string, threads: 1 };
    const cases: [((q: Queryable, orgId: string) => Promise<unknown>) | undefined, object][] = [
      [undefined, { ok: true, count: 30 }],
      [
        (q, id) => q.query(`UPDATE events SET payload = '{"forged":true}' WHERE org_id = $1 AND seq = 26`, [id]),
        { count: 25, break: { seq: 26, kind: 'row_hash' } },
      ],
      [(q, id) => q.query('DELETE FROM events WHERE org_id = $1 AND seq = 25', [id]), { count: 24, break: { seq: 25, kind: 'gap' } }],
      [(q, id) => q.query(`UPDATE events SET prev_hash = 'abc' WHERE org_id = $1 AND seq = 26`, [id]), { count: 25, break: { seq: 26, kind: 'prev_hash' } }],
    ];
    for (const [edit, expected] of cases) {
      const org = await orgWithEvents(30);
      if (edit) await tamper(s.runtime, (q) => edit(q, org.orgId).then(() => undefined));
      const paged = await verifyOrgChain(s.runtime.db, org.orgId, { pageSize: 1 });
      expect(paged).toMatchObject(expected);
      expect(await verifyOrgChain(s.runtime.db, org.orgId, { pageSize: 1, parallel: copy })).toEqual(paged);
    }
  });

  it('verifies rows whose fields JSON escapes on the COPY walk too, and catches an edit of one', async () => {
    const copy = { databaseUrl: DATABASE_URL as string, threads: 1 };
    const org = await orgWithEvents(2);
    const head = await headOf(s.runtime.db, org.orgId);
    const e = {
      seq: 3,
      family: 'org',
      kind: 'odd\tkind',
      entity_id: 'x"y',
      actor: 'line\nbreak é 😀',
      at: new Date().toISOString(),
      payload: { q: 'say "hi"' },
    };
    const rowHash = computeRowHash(head.rowHash, e);
    // A consistent row and head, written by hand: fields the server never writes but the spec allows.
    await s.runtime.db.query(
      `INSERT INTO events (org_id, seq, family, kind, entity_id, actor, at, payload, prev_hash, row_hash) VALUES ($1, 3, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [org.orgId, e.family, e.kind, e.entity_id, e.actor, e.at, canonicalJson(e.payload), head.rowHash, rowHash],
    );
    await s.runtime.db.query('UPDATE ledger_heads SET seq = 3, prev_hash = $2, row_hash = $3 WHERE org_id = $1', [org.orgId, head.rowHash, rowHash]);
    const ok = { ok: true, count: 3, head: { seq: 3, rowHash } };
    expect(await verifyOrgChain(s.runtime.db, org.orgId)).toEqual(ok);
    expect(await verifyOrgChain(s.runtime.db, org.orgId, { parallel: copy })).toEqual(ok);
    await tamper(s.runtime, async (q) => {
      await q.query('UPDATE events SET actor = $2 WHERE org_id = $1 AND seq = 3', [org.orgId, 'line\nbreak e']);
    });
    const broken = await verifyOrgChain(s.runtime.db, org.orgId);
    expect(broken).toMatchObject({ ok: false, count: 2, break: { seq: 3, kind: 'row_hash' } });
    expect(await verifyOrgChain(s.runtime.db, org.orgId, { parallel: copy })).toEqual(broken);
  });

  it('leaves short chains to the sequential walk', async () => {
    const org = await orgWithEvents(3);
    expect(await verifyInSegments(s.runtime.db, org.orgId, 2, { ...parallel, minEvents: 4 })).toBeUndefined();
  });
});
