import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPIRE_OUTPUTS_JOB, expireDue, expireOutputs, scheduleOverdueExpiry } from '../../../domain/branding/retention.js';
import { BOSS_SCHEMA } from '../../../domain/jobs/scheduler.js';
import { one } from '../../../db/types.js';
import { eventsAfter, head, mutate, noop, ok, refused } from '../../helpers/calls.js';
import { OffsetClock, TestClock } from '../../helpers/clock.js';
import { DATABASE_URL, freshOrg, TestClient, testServer, type TestServer } from '../../helpers/harness.js';
import { runJobByHand } from '../../helpers/jobs.js';
import { until } from '../../jobs/kit.js';
import { freshDatabase } from '../../multiprocess/harness.js';
import { download, folder } from '../files/drive-kit.js';
import { FOUNDATION, PACKAGE } from './kit.js';

/*
 * Retention of renders and exports: each schedules the branding.expireOutputs job at its retainUntil (one waiting run
 * per org and hour); the run, a second after it, marks every output of the org then due expired (a revision by '')
 * and drops its blob references, with one system event per batch; the URL stops serving and the blob store's GC may
 * take the bytes (unless a drive file holds them). Before and at retainUntil nothing happens. The same inputs again
 * renew an archived, expired or overdue render: a new revision with a URL that serves, changed:true. Business time is
 * a TestClock, so the runs go by hand; the last test lets the real worker run one.
 */

const clock = new TestClock('2026-11-02');
let s: TestServer;
beforeAll(async () => {
  s = await testServer({ clock });
});
afterAll(() => s.close());

interface Studio {
  orgId: string;
  key: string;
  c: TestClient;
  tpl: { id: string };
}

/** An org of its own (its outputs alone are due in it) with the foundation and the launch-post template. */
async function studio(name: string): Promise<Studio> {
  const org = await freshOrg(s.runtime, name);
  const c = new TestClient(s.app, org.adminKey);
  await ok(c, 'branding.saveFoundation', { baseVersion: 0, patch: FOUNDATION });
  const tpl = (await ok(c, 'branding.cloneTemplate', { package: PACKAGE, idempotencyId: `${name}-tpl` })).template;
  return { orgId: org.orgId, key: org.adminKey, c, tpl };
}

const render = (st: Studio, headline: string, extra: Record<string, unknown> = {}) => ({
  templateId: st.tpl.id,
  values: { headline, subline: 'all week' },
  format: 'png',
  ...extra,
});
const sweep = (st: Studio, causeSeq = 0) => runJobByHand(s.runtime, expireOutputs, st.orgId, { due: clock.now().toISOString() }, causeSeq);

const asset = async (st: Studio, id: string) =>
  one(
    await s.runtime.db.query<{ status: string; revision: number; retain_until: Date | string | null; by_actor: string }>(
      `SELECT a.status, r.revision, r.retain_until, r.by_actor FROM brand_assets a JOIN brand_asset_revisions r USING (org_id, asset_id, revision)
        WHERE a.org_id = $1 AND a.asset_id = $2`,
      [st.orgId, id],
    ),
  );
const holders = async (st: Studio, sha256: string) =>
  (await s.runtime.db.query<{ holder: string }>('SELECT holder FROM blob_refs WHERE org_id = $1 AND sha256 = $2 ORDER BY holder', [st.orgId, sha256])).map(
    (r) => r.holder,
  );
const runs = (st: Studio) =>
  s.runtime.db.query<{ state: string; singleton_key: string; start_after: Date; cause_seq: number }>(
    `SELECT state::text, singleton_key, start_after, (data->>'causeSeq')::int AS cause_seq FROM ${BOSS_SCHEMA}.job
      WHERE name = $1 AND data->>'orgId' = $2 ORDER BY start_after`,
    [EXPIRE_OUTPUTS_JOB, st.orgId],
  );
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

describe('scheduling', () => {
  it('a new render or export schedules a run a second after its retainUntil, at most one waiting per org and hour; a cached render none', async () => {
    clock.set('2026-11-02');
    const st = await studio('sched');
    const { result, event } = await mutate(st.c, 'branding.renderTemplate', render(st, 'One'), 'branding.template.render');
    expect(result.retainUntil).toBe('2027-01-31T09:00:00.000Z');
    await ok(st.c, 'branding.renderTemplate', render(st, 'Two'));
    await noop(st.c, 'branding.renderTemplate', render(st, 'One'), 'branding.template.render');
    clock.setAt('2026-11-02T10:30:00.000Z');
    const kit = (await mutate(st.c, 'branding.exportKit', { include: ['tokens'] }, 'branding.kit.export')).result;
    expect(kit.retainUntil).toBe('2027-01-31T10:30:00.000Z');
    const rows = await runs(st);
    expect(rows.map((r) => [r.state, r.singleton_key, iso(r.start_after)])).toEqual([
      ['created', `${st.orgId}:2027-01-31T09`, '2027-01-31T09:00:01.000Z'],
      ['created', `${st.orgId}:2027-01-31T10`, '2027-01-31T10:30:01.000Z'],
    ]);
    expect(rows[0]?.cause_seq).toBe(event.seq);
  });
});

describe('the sweep', () => {
  it('before and at retainUntil nothing; after it every due output expired in one system event, blobs released, URLs refused', async () => {
    clock.set('2026-11-02');
    const st = await studio('sweep');
    const plain = await ok(st.c, 'branding.renderTemplate', render(st, 'Plain'));
    const f = await folder(s, st.key, 'Renders');
    const filed = await ok(st.c, 'branding.renderTemplate', render(st, 'Filed', { saveToFolderId: f.id }));
    expect((await download(s, plain.url)).status).toBe(200);
    const from = await head(st.c);

    for (const at of ['2027-01-31T08:59:59.000Z', '2027-01-31T09:00:00.000Z']) {
      clock.setAt(at);
      expect(await sweep(st, from), at).toBeUndefined();
      expect((await asset(st, plain.renderId)).status).toBe('active');
    }
    expect(await eventsAfter(st.c, from)).toEqual([]);
    expect((await download(s, plain.url)).status).toBe(200);

    clock.setAt('2027-01-31T09:00:01.000Z');
    expect(await sweep(st, from)).toBeDefined();
    const events = await eventsAfter(st.c, from);
    expect(events).toHaveLength(1);
    const ids = [plain.renderId, filed.renderId].sort();
    expect(events[0]).toMatchObject({
      kind: 'branding.output.expire',
      actor: '',
      entity_id: ids[0],
      payload: { assetIds: ids, renders: 2, exports: 0, releasedBlobs: 2, more: false, nextRunAt: null, causeSeq: from },
    });
    expect(events[0].payload.designHead).toMatchObject({ seq: expect.any(Number) });
    for (const r of [plain, filed]) {
      expect(await asset(st, r.renderId)).toMatchObject({ status: 'expired', revision: 2, by_actor: '' });
      expect((await download(s, r.url)).status).toBe(404);
    }
    // Nothing holds the plain render's bytes: the blob store's GC may collect them. The drive file keeps its own.
    expect(await holders(st, plain.sha256)).toEqual([]);
    expect(await holders(st, filed.sha256)).toEqual([expect.stringMatching(new RegExp(`^${filed.fileId}`))]);
    // Done once: another run finds nothing.
    expect(await sweep(st, from)).toBeUndefined();
    // An expired output changes no more.
    await refused(st.c, 'branding.amendArtifact', { artifactId: plain.renderId, baseRevision: 2, tags: ['x'], idempotencyId: 'amend-expired' }, 'CONFLICT', {
      message: new RegExp(
        `^render ${plain.renderId} expired \\(kept until 2027-01-31T09:00:00.000Z\\): its bytes are released .*branding.renderTemplate renews it\\)$`,
      ),
    });
  });

  it('a retainUntil amended later is found by the next run; null counts 90 days from when the bytes were made; a full batch says more', async () => {
    clock.set('2026-11-02');
    const st = await studio('amended');
    const later = await ok(st.c, 'branding.renderTemplate', render(st, 'Later'));
    const due = await ok(st.c, 'branding.renderTemplate', render(st, 'Due'));
    const amended = await ok(st.c, 'branding.amendArtifact', {
      artifactId: later.renderId,
      baseRevision: 1,
      retainUntil: '2027-06-01T00:00:00Z',
      idempotencyId: 'keep-longer',
    });
    expect(amended.asset.retainUntil).toBe('2027-06-01T00:00:00.000Z');
    const back = await ok(st.c, 'branding.amendArtifact', { artifactId: later.renderId, baseRevision: 2, retainUntil: null, idempotencyId: 'default-again' });
    expect(back.asset.retainUntil).toBe('2027-01-31T09:00:00.000Z');
    await ok(st.c, 'branding.amendArtifact', { artifactId: later.renderId, baseRevision: 3, retainUntil: '2027-06-01T00:00:00Z', idempotencyId: 'longer-2' });

    clock.setAt('2027-01-31T09:00:01.000Z');
    const from = await head(st.c);
    await sweep(st, from);
    const [event] = await eventsAfter(st.c, from);
    expect(event.payload).toMatchObject({ assetIds: [due.renderId], nextRunAt: '2027-06-01T00:00:01.000Z' });
    expect((await asset(st, later.renderId)).status).toBe('active');
    // The next run, caused by this one's event, waits for the amended date.
    const next = (await runs(st)).find((r) => r.singleton_key === `${st.orgId}:2027-06-01T00`);
    expect(next).toMatchObject({ state: 'created', cause_seq: event.seq });
    expect(iso(next!.start_after)).toBe('2027-06-01T00:00:01.000Z');

    // A batch that is full says so (the job then runs again at once).
    clock.set('2026-11-03');
    await ok(st.c, 'branding.renderTemplate', render(st, 'A'));
    await ok(st.c, 'branding.renderTemplate', render(st, 'B'));
    clock.set('2027-06-02');
    const batch = await s.runtime.db.tx((q) => expireDue(q, st.orgId, clock.now(), 1));
    expect([batch.expired.length, batch.more]).toEqual([1, true]);
  });

  it('a retainUntil amended sooner than the next run schedules a run at the new time, which expires the output then', async () => {
    // Dates ahead of the machine: no other file's worker on a shared database finds these runs due.
    clock.set('2029-11-02');
    const st = await studio('sooner');
    const r = await ok(st.c, 'branding.renderTemplate', render(st, 'Sooner'));
    const kept = await ok(st.c, 'branding.renderTemplate', render(st, 'Kept'));
    await ok(st.c, 'branding.amendArtifact', { artifactId: r.renderId, baseRevision: 1, retainUntil: '2029-11-20T12:30:00Z', idempotencyId: 'sooner' });
    // Later again is found by the run already waiting: no run of its own.
    await ok(st.c, 'branding.amendArtifact', { artifactId: kept.renderId, baseRevision: 1, retainUntil: '2030-03-01T00:00:00Z', idempotencyId: 'later' });
    const rows = await runs(st);
    expect(rows.map((x) => [x.state, x.singleton_key, iso(x.start_after)])).toEqual([
      ['created', `${st.orgId}:2029-11-20T12`, '2029-11-20T12:30:01.000Z'],
      ['created', `${st.orgId}:2030-01-31T09`, '2030-01-31T09:00:01.000Z'],
    ]);
    // An R write has no event of its own: its run is caused by none, as a start-up run is.
    expect(rows[0]?.cause_seq).toBe(0);

    const from = await head(st.c);
    clock.setAt('2029-11-20T12:30:00.000Z');
    expect(await sweep(st, 0)).toBeUndefined();
    expect((await download(s, r.url)).status).toBe(200);
    clock.setAt('2029-11-20T12:30:01.000Z');
    expect(await sweep(st, 0)).toBeDefined();
    const [event] = await eventsAfter(st.c, from);
    expect(event).toMatchObject({ kind: 'branding.output.expire', payload: { assetIds: [r.renderId], nextRunAt: '2030-03-01T00:00:01.000Z' } });
    expect(await asset(st, r.renderId)).toMatchObject({ status: 'expired', by_actor: '' });
    expect((await download(s, r.url)).status).toBe(404);
    expect((await asset(st, kept.renderId)).status).toBe('active');
  });

  it('at start, orgs with overdue outputs get a run now', async () => {
    clock.set('2026-11-02');
    const st = await studio('overdue');
    await ok(st.c, 'branding.renderTemplate', render(st, 'Old'));
    clock.setAt('2027-02-10T12:00:00.000Z');
    expect(await scheduleOverdueExpiry.run(s.runtime.deps)).toBeGreaterThanOrEqual(1);
    expect((await runs(st)).map((r) => [r.singleton_key, iso(r.start_after)])).toContainEqual([`${st.orgId}:2027-02-10T12`, '2027-02-10T12:00:00.000Z']);
  });
});

describe('serving', () => {
  it("an output's URL serves until its retainUntil by business time (the clock), not the machine's, before any run", async () => {
    // Years ahead of the machine (its run, due then, is no worker's business now on a shared database).
    clock.set('2030-01-07');
    const st = await studio('serve-clock');
    const r = await ok(st.c, 'branding.renderTemplate', render(st, 'Dated'));
    expect(r.retainUntil).toBe('2030-04-07T09:00:00.000Z');
    expect(Date.now()).toBeLessThan(Date.parse(r.retainUntil));
    clock.setAt('2030-04-07T09:00:00.000Z');
    expect((await download(s, r.url)).status).toBe(200);
    clock.setAt('2030-04-07T09:00:01.000Z');
    expect((await download(s, r.url)).status).toBe(404);
    // No run expired it: the download's own check refused it, by the clock.
    expect((await asset(st, r.renderId)).status).toBe('active');
  });
});

describe('renewal', () => {
  it('an expired render: the same inputs make a new revision that serves, changed:true; then changed:false again', async () => {
    clock.set('2026-11-02');
    const st = await studio('renew-expired');
    const first = await ok(st.c, 'branding.renderTemplate', render(st, 'Again'));
    clock.setAt('2027-01-31T09:00:01.000Z');
    await sweep(st);
    expect((await download(s, first.url)).status).toBe(404);
    const { result, event } = await mutate(st.c, 'branding.renderTemplate', render(st, 'Again'), 'branding.template.render');
    expect(result).toMatchObject({ renderId: first.renderId, sha256: first.sha256, changed: true, retainUntil: '2027-05-01T09:00:01.000Z' });
    expect(event.payload).toMatchObject({ renderId: first.renderId, renewed: true, assetRevision: 3 });
    expect(event.payload.noop).toBeUndefined();
    const got = await download(s, result.url);
    expect(got.status).toBe(200);
    expect(await holders(st, first.sha256)).toEqual([first.renderId]);
    expect(await asset(st, first.renderId)).toMatchObject({ status: 'active', revision: 3 });
    // Its new retention is scheduled.
    expect((await runs(st)).map((r) => iso(r.start_after))).toContain('2027-05-01T09:00:02.000Z');
    expect(await noop(st.c, 'branding.renderTemplate', render(st, 'Again'), 'branding.template.render')).toMatchObject({ changed: false });
  });

  it('an archived render: renewed the same way; undoing the archive is then CONFLICT saying it was made again', async () => {
    clock.set('2026-11-02');
    const st = await studio('renew-archived');
    const first = await ok(st.c, 'branding.renderTemplate', render(st, 'Shelved'));
    const archived = await ok(st.c, 'branding.amendArtifact', { artifactId: first.renderId, baseRevision: 1, status: 'archived', idempotencyId: 'shelve' });
    expect((await download(s, first.url)).status).toBe(404);
    const again = (await mutate(st.c, 'branding.renderTemplate', render(st, 'Shelved'), 'branding.template.render')).result;
    expect(again).toMatchObject({ renderId: first.renderId, sha256: first.sha256, changed: true });
    expect((await download(s, again.url)).status).toBe(200);
    expect(await asset(st, first.renderId)).toMatchObject({ status: 'active', revision: 3 });
    await refused(st.c, 'branding.undo', { version: archived.version, idempotencyId: 'unshelve' }, 'CONFLICT', {
      message: `render ${first.renderId} was made again after version ${archived.version}: amend it instead (branding.amendArtifact)`,
    });
  });

  it('a render past its retainUntil that no run has expired yet is renewed too; the run then finds nothing due', async () => {
    clock.set('2026-11-02');
    const st = await studio('renew-overdue');
    const first = await ok(st.c, 'branding.renderTemplate', render(st, 'Late'));
    clock.set('2027-02-05');
    const again = await ok(st.c, 'branding.renderTemplate', render(st, 'Late'));
    expect(again).toMatchObject({ renderId: first.renderId, changed: true, retainUntil: '2027-05-06T09:00:00.000Z' });
    expect(await sweep(st)).toBeUndefined();
    expect((await asset(st, first.renderId)).status).toBe('active');
  });
});

describe('with the real worker', () => {
  it('a render whose retention has passed is expired by the run it scheduled, a system event citing its render', async () => {
    const fresh = DATABASE_URL ? await freshDatabase(DATABASE_URL, 'wops_brand_retention') : undefined;
    // Made 90 days and 2 s ago: its run is due at once.
    const offset = new OffsetClock();
    offset.advance(-(90 * 86_400_000) - 2000);
    const w = await testServer({ ...(fresh ? { databaseUrl: fresh.url } : { inMemory: true }), clock: offset });
    try {
      await ok(w, 'branding.saveFoundation', { baseVersion: 0, patch: FOUNDATION });
      const tpl = (await ok(w, 'branding.cloneTemplate', { package: PACKAGE, idempotencyId: 'w-tpl' })).template;
      const { result, event } = await mutate(w, 'branding.renderTemplate', { templateId: tpl.id, values: { headline: 'Worker' } }, 'branding.template.render');
      offset.advance(90 * 86_400_000 + 2000);
      await w.runtime.deps.jobs.startWorkers({ pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1 });
      const expired = await until('the expiry', async () => (await eventsAfter(w, event.seq)).find((e) => e.kind === 'branding.output.expire'));
      expect(expired).toMatchObject({ actor: '', entity_id: result.renderId, payload: { assetIds: [result.renderId], causeSeq: event.seq } });
      expect((await download(w, result.url)).status).toBe(404);
    } finally {
      await w.close();
      await fresh?.drop();
    }
  });
});
