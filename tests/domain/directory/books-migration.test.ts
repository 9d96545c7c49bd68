import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo, type DemoResult } from '../../../cli/demo.js';
import { migrate } from '../../../db/migrate.js';
import { openPglite } from '../../../db/pglite.js';
import { openPostgres } from '../../../db/postgres.js';
import { one, type Db, type Queryable } from '../../../db/types.js';
import { createRuntime, type Runtime } from '../../../domain/deployed.js';
import { buildApp } from '../../../gateway/app.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { DATABASE_URL, TestClient, allEvents, onPostgres, testRuntime } from '../../helpers/harness.js';
import { freshDatabase } from '../../multiprocess/harness.js';
import { checkInvariants } from '../books/setup.js';

/*
 * Acceptance scenario 1 (migration 034 on a database that already holds books): the demo company is seeded on a
 * current database (A); a second database (B) is migrated only up to 033 and given A's rows (books_contacts in its
 * old shape, from the view that replaces it; no directory rows, as before the directory held contacts); two
 * contacts get one ABN and two others one Gmail address written differently, as an operator might have typed
 * them. Then B is opened by the application: 034 runs, then the first-start step. Every books read answers as on A.
 */

const ABN = '51824753556';
const cleanup: (() => Promise<void> | void)[] = [];
let A: Runtime;
let demo: DemoResult;
let bUrl: { databaseUrl?: string; dataDir?: string };
let B: Runtime;
let appA: Awaited<ReturnType<typeof buildApp>>;
let appB: Awaited<ReturnType<typeof buildApp>>;
let old: Record<string, unknown>[];
let pair: string[];
let gmail: string[];

type Row = Record<string, unknown>;
const DROP: Row = {};
/** Rows the demo makes that 033's constraints cannot hold, as they would have been then (or dropped). */
const AS_AT_033: Record<string, (r: Row) => Row> = {
  // No TFN declared (scale 4, migration 046): an ACTIVE employee then had a TFN.
  books_employees: (r) => (r.status === 'ACTIVE' && r.tfn === null ? { ...r, tfn: '123456782' } : r),
  // A fund's acknowledgement of super (migration 047) did not exist.
  books_receipts: (r) => (r.link_kind === 'super' ? DROP : r),
};

/**
 * Copy every table B has (as B names its columns) from A, but the directory's and the migrations' own: the rows of
 * the org (A may be a PostgreSQL database shared by other tests), and global tables whole.
 */
async function copyTables(from: Queryable, to: Db, orgId: string): Promise<void> {
  const tables = await to.query<{ table_name: string; columns: string[] }>(
    `SELECT c.relname AS table_name, array_agg(a.attname::text ORDER BY a.attnum) AS columns
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname NOT LIKE 'directory\\_%' AND c.relname <> 'schema_migrations'
      GROUP BY c.relname ORDER BY c.relname`,
  );
  await to.tx(async (q) => {
    await q.query(`SET LOCAL session_replication_role = replica`); // rows arrive in any order: no foreign-key triggers
    for (const t of tables) {
      const tenant = t.columns.includes('org_id');
      const { rows: all } = one(
        await from.query<{ rows: Row[] | null }>(
          `SELECT jsonb_agg(to_jsonb(t)) AS rows FROM "${t.table_name}" t ${tenant ? 'WHERE org_id = $1' : ''}`,
          tenant ? [orgId] : [],
        ),
      );
      const rows = all?.map((r) => AS_AT_033[t.table_name]?.(r) ?? r).filter((r) => r !== DROP);
      await q.query(`DELETE FROM "${t.table_name}"`);
      if (!rows?.length) continue;
      const cols = t.columns.map((c) => `"${c}"`).join(', ');
      await q.query(
        `INSERT INTO "${t.table_name}" (${cols}) OVERRIDING SYSTEM VALUE SELECT ${cols} FROM jsonb_populate_recordset(NULL::"${t.table_name}", $1::jsonb)`,
        [JSON.stringify(rows)],
      );
    }
    const identities = await q.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND is_identity = 'YES'`,
    );
    for (const i of identities) {
      await q.query(
        `SELECT setval(pg_get_serial_sequence('"${i.table_name}"', '${i.column_name}'), m) FROM (SELECT max("${i.column_name}") AS m FROM "${i.table_name}") x WHERE m IS NOT NULL`,
      );
    }
  });
}

/** A database migrated up to 033 only. */
async function databaseAt033(): Promise<Db> {
  if (onPostgres) {
    const fresh = await freshDatabase(DATABASE_URL!, 'wops_m034');
    cleanup.push(() => fresh.drop());
    bUrl = { databaseUrl: fresh.url };
    const db = openPostgres(fresh.url, { poolSize: 2 });
    await migrate(db, { upTo: '033' });
    return db;
  }
  const dir = mkdtempSync(join(tmpdir(), 'wops-m034-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  bUrl = { dataDir: dir };
  const db = await openPglite(dir);
  await migrate(db, { upTo: '033' });
  return db;
}

beforeAll(async () => {
  A = await testRuntime();
  cleanup.push(() => A.close());
  demo = await seedDemo(A, { slug: `m034-${Date.now().toString(36)}` });
  // Two more contacts, for the email pair.
  const second = await A.pipeline.call({
    method: 'books.invoiceDraft',
    params: { payeeName: 'Email Pair One', description: 'x', totalCents: 1_100, dueDays: 7 },
    apiKey: demo.keys.admin,
  });
  expect(second.frame.ok).toBe(true);
  await A.pipeline.call({
    method: 'books.invoiceDraft',
    params: { payeeName: 'Email Pair Two', description: 'x', totalCents: 1_100, dueDays: 7 },
    apiKey: demo.keys.admin,
  });

  const b = await databaseAt033();
  try {
    await copyTables(A.db, b, demo.orgId);
    const contacts = await b.query<{ contact_id: string; name: string }>('SELECT contact_id, name FROM books_contacts WHERE org_id = $1 ORDER BY n', [
      demo.orgId,
    ]);
    pair = contacts.filter((c) => /^(Adobe Systems|Tech Supplies Co)$/.test(c.name)).map((c) => c.contact_id);
    gmail = contacts.filter((c) => /^Email Pair/.test(c.name)).map((c) => c.contact_id);
    expect(pair).toHaveLength(2);
    await b.query('UPDATE books_contacts SET abn = $2 WHERE org_id = $1 AND contact_id = ANY($3::text[])', [demo.orgId, ABN, pair]);
    await b.query(`UPDATE books_contacts SET email = 'Accounts.Team@gmail.com' WHERE contact_id = $1`, [gmail[0]]);
    await b.query(`UPDATE books_contacts SET email = 'accountsteam@gmail.com' WHERE contact_id = $1`, [gmail[1]]);
    old = await b.query('SELECT * FROM books_contacts ORDER BY contact_id');
  } finally {
    await b.close();
  }
  B = await createRuntime({ ...bUrl, poolSize: 4 });
  cleanup.push(() => B.close());
  appA = await buildApp({ runtime: A, logger: false, rateLimitPerMinute: 0 });
  appB = await buildApp({ runtime: B, logger: false, rateLimitPerMinute: 0 });
  cleanup.push(
    () => appA.close(),
    () => appB.close(),
  );
}, 600_000);
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

const clientOf = (app: typeof appA) => new TestClient(app, demo.keys.admin);

describe('scenario 1: migration', () => {
  it('contacts -> organisations with ABN, email and the role con_; books reads unchanged; the chain verifies', async () => {
    const now = await B.db.query('SELECT * FROM books_contacts ORDER BY contact_id');
    expect(now.map(({ party_id: _p, ...rest }) => rest)).toEqual(old);
    const b = clientOf(appB);
    for (const c of old.filter((r) => r.org_id === demo.orgId)) {
      const org = (await b.ok('directory.getOrg', { orgId: `co_${String(c.contact_id).slice(4)}` })).org;
      expect(org).toMatchObject({ kind: 'org', status: 'active', displayName: c.name, origin: 'import', email: c.email ?? null });
      expect(org.roles.map((r: any) => r.refId)).toEqual([c.contact_id]);
      expect(org.identifiers).toEqual(c.abn ? { abn: ABN } : {});
    }
    const a = clientOf(appA);
    for (const [method, params] of [
      ['books.invoices', { limit: 200 }],
      ['books.bills', { limit: 200 }],
      ['books.reports', { report: 'trialBalance' }],
      ['books.reports', { report: 'agedReceivables' }],
      ['books.reports', { report: 'agedPayables' }],
      ['books.journals', { limit: 200 }],
      ['books.feedLines', { limit: 200 }],
    ] as const) {
      const [x, y] = [await a.rpc(method, params), await b.rpc(method, params)];
      expect(x.body.ok, `${method}: ${x.raw.slice(0, 300)}`).toBe(true);
      expect(y.body, `${method} ${JSON.stringify(params)}`).toEqual(x.body);
    }
    await checkInvariants(B.db, demo.orgId);
    const verdict = await verifyOrgChain(B.db, demo.orgId);
    expect(verdict.ok).toBe(true);
  });

  it('an invoice naming a contact in other letter case reuses its con_', async () => {
    const b = clientOf(appB);
    const lighthouse = old.find((c) => c.name === 'Lighthouse Bakery')!;
    const inv = (await b.ok('books.invoiceDraft', { payeeName: 'LIGHTHOUSE   bakery', description: 'Labels', totalCents: 22_000, dueDays: 14 })).invoice;
    expect(inv.contact).toEqual({ id: lighthouse.contact_id, name: 'Lighthouse Bakery' });
  });

  it('a pair sharing an ABN -> one proposed merge; the email pair (keys recomputed at first start) -> another; one import event per org, counts only', async () => {
    const b = clientOf(appB);
    const merges = (await b.ok('directory.listMerges', { status: 'proposed' })).merges;
    expect(merges.map((m: any) => [m.survivorId, m.mergedId, m.score, m.reasons, m.proposedBy]).sort()).toEqual(
      [
        [`co_${pair[0].slice(4)}`, `co_${pair[1].slice(4)}`, 100, ['same_identifier'], ''],
        [`co_${gmail[0].slice(4)}`, `co_${gmail[1].slice(4)}`, 0, [], ''],
      ].sort(),
    );
    const abnMerge = merges.find((m: any) => m.score === 100);
    expect(abnMerge.preview.roles).toEqual([{ family: 'books', role: 'books.supplier', refId: pair[1] }]);
    const events = (await allEvents(b)).filter((e) => e.kind === 'directory.books.import');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actor: '', entity_id: demo.orgId });
    expect(events[0].payload).toEqual({
      contacts: old.length,
      parties: old.length,
      identifiers: 2,
      channels: 2,
      keysRecomputed: 1,
      merges: 2,
      by: 'system',
    });
    expect(JSON.stringify(events[0])).not.toMatch(/gmail|Adobe|Lighthouse/i);
  });

  it('a restart appends nothing more (the step is done once)', async () => {
    const count = async () => one(await B.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE org_id = $1', [demo.orgId])).n;
    const before = await count();
    await appB.close();
    await B.close();
    B = await createRuntime({ ...bUrl, poolSize: 2 });
    appB = await buildApp({ runtime: B, logger: false, rateLimitPerMinute: 0 });
    expect(await count()).toBe(before);
    expect(await B.db.query('SELECT appended_seq FROM directory_books_imports WHERE org_id = $1', [demo.orgId])).toEqual([
      { appended_seq: expect.any(Number) },
    ]);
  });
});
