import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { canonicalJson, sha256Hex } from '../../../../protocol/hashing.js';
import { one } from '../../../../db/types.js';
import { onPostgres } from '../../../helpers/harness.js';
import { charterGet } from './setup.js';
import { ok, refused, rpc } from '../../../helpers/calls.js';

/*
 * charter.get and how versions are kept: every version rebuilds to the content hash recorded for it (snapshots
 * every so often, deltas between), the parent-hash chain, history paging, a markdown diff of any two versions,
 * the 256 KB limit, and two writers racing on one head (PostgreSQL).
 */

const docHash = (c: any) => sha256Hex(canonicalJson({ title: c.title, mission: c.mission, sections: c.sections, colleagues: c.colleagues }));

describe('charter.get: any version, history, diff', () => {
  it('120 versions: each rebuilds to its recorded hash, the parent chain links, snapshots stay few', async ({ charter: o }) => {
    const { s } = o;
    // A large part that stays put, and small edits: deltas, with a snapshot every 50 versions.
    await ok(s, 'charter.addSection', { key: 'static', heading: 'Static', body: 'The unchanging part. '.repeat(2_400) });
    const sec = (await ok(s, 'charter.addSection', { key: 'log', heading: 'Log', body: 'start' })).section;
    for (let i = 1; i <= 118; i++) {
      if (i % 3 === 0) await ok(s, 'charter.updateClauses', { sectionId: sec.id, clauses: [{ text: `Clause ${i}.` }] });
      else await ok(s, 'charter.updateSection', { sectionId: sec.id, body: `Entry ${i}: ${'lorem ipsum '.repeat(20)}` });
    }
    const all: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await charterGet(s, { limit: 50, ...(cursor ? { cursor } : {}) });
      all.push(...page.history);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(all.map((v) => v.version)).toEqual(Array.from({ length: 120 }, (_, i) => 120 - i));
    for (let i = 0; i < all.length - 1; i++) expect(all[i].parentHash).toBe(all[i + 1].contentHash);
    expect(all.at(-1).parentHash).toBeNull();
    for (const v of [1, 2, 49, 50, 51, 77, 119, 120]) {
      const { charter } = await charterGet(s, { version: v, limit: 1 });
      expect(charter.version).toBe(v);
      expect(docHash(charter)).toBe(all.find((x) => x.version === v).contentHash);
      expect(charter.contentHash).toBe(docHash(charter));
    }
    const stored = one(
      await s.runtime.db.query<{ snapshots: number; deltas: number }>(
        'SELECT count(*) FILTER (WHERE snapshot IS NOT NULL)::int AS snapshots, count(*) FILTER (WHERE delta IS NOT NULL)::int AS deltas FROM charter_versions WHERE org_id = $1',
        [s.org.orgId],
      ),
    );
    expect(stored.snapshots).toBe(3);
    expect(stored.deltas).toBe(120 - stored.snapshots);
  });

  it('diffFrom: a unified diff of two versions as markdown; version 0 is the empty charter; past the head: NOT_FOUND', async ({ charter: o }) => {
    const { s } = o;
    const { charter } = await charterGet(s, { limit: 1 });
    const r = await charterGet(s, { version: 4, diffFrom: 3, limit: 1 });
    expect(r.diff.from).toBe(3);
    expect(r.diff.to).toBe(4);
    expect(r.diff.markdown).toMatch(/^```diff\n/);
    expect(r.diff.markdown).toContain('--- charter v3');
    expect(r.diff.markdown).toContain('+++ charter v4');
    expect(r.diff.markdown).toMatch(/\n-Entry 1: lorem/);
    expect(r.diff.markdown).toMatch(/\n\+Entry 2: lorem/);
    const zero = await charterGet(s, { version: 0, diffFrom: charter.version, limit: 1 });
    expect(zero.charter).toMatchObject({ version: 0, title: '', sections: [], parentHash: null });
    expect(zero.diff.markdown).toContain('-## Log');
    await refused(s, 'charter.get', { version: charter.version + 1 }, 'NOT_FOUND', {
      message: `charter version ${charter.version + 1} (the head is version ${charter.version}) not found`,
    });
    await refused(s, 'charter.get', { diffFrom: charter.version + 5 }, 'NOT_FOUND');
    await refused(s, 'charter.get', { cursor: 'abc' }, 'BAD_REQUEST', { message: 'cursor: not a cursor this read returned' });
    await refused(s, 'charter.get', { limit: 501 }, 'BAD_REQUEST', { message: 'limit: must be at most 500' });
    // Any member reads it (org.read); no event.
    expect((await charterGet(s, { limit: 1 }, o.reader.key)).charter.version).toBe(charter.version);
  });

  it('the charter stays within 256 KB: a write that would pass it is a BAD_REQUEST naming the field, nothing written', async ({ charter: o }) => {
    const { s } = o;
    const big = 'x'.repeat(99_000); // the static section holds about 50 KB already
    await ok(s, 'charter.addSection', { key: 'big-1', heading: 'Big 1', body: big });
    await ok(s, 'charter.addSection', { key: 'big-2', heading: 'Big 2', body: big });
    const v = (await charterGet(s, { limit: 1 })).charter.version;
    await refused(s, 'charter.addSection', { key: 'big-3', heading: 'Big 3', body: big }, 'BAD_REQUEST', {
      message: /^body: the charter would be \d+ bytes, over its limit of 262144 \(256 KB\)/,
    });
    expect((await charterGet(s, { limit: 1 })).charter.version).toBe(v);
  });
});

describe.skipIf(!onPostgres)('two writers on one head (PostgreSQL; on PGlite calls run one at a time, so this is skipped)', () => {
  it('both name the same baseVersion: one makes the next version, the other is a CONFLICT naming it', async ({ charter: o }) => {
    const { s } = o;
    const v = (await charterGet(s, { limit: 1 })).charter.version;
    const results = await Promise.all([1, 2, 3].map((i) => rpc(s, 'charter.update', { title: `Race ${i}`, baseVersion: v })));
    const okCount = results.filter((r) => r.body.ok).length;
    expect(okCount).toBe(1);
    for (const r of results.filter((x) => !x.body.ok))
      expect(r.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(new RegExp(`^the charter is at version ${v + 1} `)) });
    expect((await charterGet(s, { limit: 1 })).charter.version).toBe(v + 1);
  });
});
