import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OVERDUE_ORGS_SQL, overdueParams } from '../../../domain/branding/retention.js';
import { freshOrg, testServer, type TestServer } from '../../helpers/harness.js';

/*
 * At each start, scheduleOverdueExpiry asks which orgs have outputs past their retain_until (decision 0083). Migration
 * 085's partial index on brand_asset_revisions (retain_until) serves that query: with a few thousand outputs, most of
 * them not due, the plan reads the index's due entries, not every revision.
 */

let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

describe("the start-up's overdue outputs query", () => {
  it('reads the partial index on retain_until, for a library of 3,000 outputs of which 20 are due', async () => {
    const { orgId } = await freshOrg(s.runtime, 'due-index');
    // Years ahead of the machine: the start-ups of other runtimes on a shared database find none of these due.
    const now = new Date('2031-01-01T00:00:00Z');
    // 3,000 renders (one revision each) kept from a day before `now` to 90 days after it, and 500 images (no date).
    await s.runtime.db.tx(async (q) => {
      await q.query(
        `INSERT INTO brand_asset_revisions (org_id, asset_id, revision, version, status, sha256, size_bytes, content_type, origin, retain_until, by_actor, at)
         SELECT $1, 'rnd_' || lpad(i::text, 16, '0'), 1, 1, 'active', md5(i::text), 10, 'image/png', 'tpl_x',
                $2::timestamptz + ((i - 21) * interval '43 minutes'), '', $2::timestamptz FROM generate_series(1, 3000) AS i`,
        [orgId, now.toISOString()],
      );
      await q.query(
        `INSERT INTO brand_asset_revisions (org_id, asset_id, revision, version, status, sha256, size_bytes, content_type, origin, by_actor, at)
         SELECT $1, 'img_' || lpad(i::text, 16, '0'), 1, 1, 'active', md5(i::text), 10, 'image/png', 'upload', '', $2::timestamptz FROM generate_series(1, 500) AS i`,
        [orgId, now.toISOString()],
      );
      await q.query(
        `INSERT INTO brand_assets (org_id, asset_id, kind, revision, status, sha256, input_hash, created_at)
         SELECT org_id, asset_id, CASE WHEN asset_id LIKE 'rnd_%' THEN 'render' ELSE 'image' END, 1, 'active', sha256, asset_id, at
           FROM brand_asset_revisions WHERE org_id = $1`,
        [orgId],
      );
    });
    await s.runtime.db.query('ANALYZE brand_asset_revisions');
    await s.runtime.db.query('ANALYZE brand_assets');

    const due = await s.runtime.db.query<{ org_id: string }>(OVERDUE_ORGS_SQL, overdueParams(now));
    expect(due.map((r) => r.org_id)).toContain(orgId);
    const plan = (await s.runtime.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${OVERDUE_ORGS_SQL}`, overdueParams(now))).map((r) => r['QUERY PLAN']).join('\n');
    console.info(`overdue outputs plan:\n${plan}`);
    // An index scan, or a bitmap of it once the database holds more due rows (another run's on a shared database).
    expect(plan).toMatch(/(Index (Only )?Scan using|Bitmap Index Scan on) brand_asset_revisions_retain_until\b/);
    expect(plan).not.toMatch(/Seq Scan on brand_asset_revisions/);
  });
});
