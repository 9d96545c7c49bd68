import { one } from '../../db/types.js';
import { partyRefs } from '../../domain/directory/index.js';
import { DEPLOYED } from '../../domain/deployed.js';
import { tryPhone } from '../../domain/directory/normalise.js';
import { rpc, type BenchContext, type BenchOrg } from '../fixture.js';
import { rng, pick } from './directory-names.js';
import type { DirectoryPlan } from './directory-seed.js';

/*
 * directory.executeMerge among 100,000 parties: a pair made through the API with a few references each (an email
 * and a phone each, the same number written two ways, works_at the same organisation, two lists, awareness, a
 * colleague's link to the merged one), proposed, then executed over HTTP and timed. What it touched is read back
 * from the rows themselves: every row a transaction writes carries its id as xmin, so the rows of the directory's
 * tables with the merge's xmin are exactly the rows it inserted or updated; each must be the pair's (or point at
 * it). Rows it deleted are in its change log, checked the same way.
 */

const PAIRS = 3;

export interface PairFigures {
  mergeId: string;
  score: number;
  httpMs: number;
  /** Rows the merge's transaction wrote, by table. */
  touched: Record<string, number>;
  /** Rows written that are neither the pair's nor point at it (must be 0). */
  foreignRows: number;
  counts: Record<string, unknown>;
}

export interface MergeFigures {
  pairs: PairFigures[];
}

/** Per table: the condition under which a row is the pair's (k.s survivor, k.l merged, k.m the merge). */
const OWNED: Record<string, string> = {
  directory_parties: 'party_id IN (k.s, k.l)',
  directory_channels: 'party_id IN (k.s, k.l)',
  directory_identifiers: 'party_id IN (k.s, k.l)',
  directory_links: 'from_id IN (k.s, k.l) OR to_id IN (k.s, k.l)',
  directory_list_members: 'party_id IN (k.s, k.l)',
  directory_awareness: 'party_id IN (k.s, k.l)',
  directory_awareness_requests: 'party_id IN (k.s, k.l)',
  directory_captures: 'party_id IN (k.s, k.l) OR match_party_id IN (k.s, k.l)',
  directory_merges: 'merge_id = k.m',
  directory_merge_changes: 'merge_id = k.m',
};

/** A valid Australian mobile number nobody in the org holds yet. */
async function freeMobile(ctx: BenchContext, org: BenchOrg, r: () => number): Promise<string> {
  for (;;) {
    const n = `4${Array.from({ length: 8 }, () => Math.floor(r() * 10)).join('')}`;
    const ck = tryPhone(`0${n}`);
    if (!ck) continue;
    const held = await ctx.db.query('SELECT 1 FROM directory_channels WHERE org_id = $1 AND kind = $2 AND key = $3', [org.orgId, 'phone', ck.key]);
    if (held.length === 0) return n;
  }
}

async function onePair(ctx: BenchContext, org: BenchOrg, plan: DirectoryPlan, i: number): Promise<PairFigures> {
  const r = rng(1000 + i);
  let k = 0;
  const call = async (method: string, params: unknown) => (await rpc(ctx.baseUrl, org.key, method, params, `${ctx.runId}-merge-${i}-${k++}`)).body.result;
  const employer = pick(
    r,
    plan.parties.filter((p) => p.kind === 'org' && p.domain),
  );
  const colleague = pick(r, plan.persons);
  const n = await freeMobile(ctx, org, r);
  const family = `Ashworth-Ngata${i}`;
  const s = (
    await call('directory.createPerson', {
      given: 'Jonathan',
      family,
      title: 'Head of Procurement',
      worksAt: { orgId: employer.id },
      channels: [
        { kind: 'email', value: `jonathan.ashworth${i}@${employer.domain}`, label: 'work' },
        { kind: 'phone', value: `0${n}`, label: 'mobile' },
      ],
    })
  ).person.id as string;
  const l = (
    await call('directory.createPerson', {
      given: 'Jon',
      family,
      worksAt: { orgId: employer.id },
      tags: ['customer'],
      channels: [
        { kind: 'phone', value: `+61 ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}` },
        { kind: 'email', value: `jon.ashworth${i}@gmail.com` },
      ],
    })
  ).person.id as string;
  const both = (await call('directory.createList', { name: `Merge bench ${i} (both)`, kind: 'static' })).list.id;
  const solo = (await call('directory.createList', { name: `Merge bench ${i} (merged only)`, kind: 'static' })).list.id;
  await call('directory.addToList', { listId: both, partyIds: [s, l] });
  await call('directory.addToList', { listId: solo, partyIds: [l] });
  await call('directory.setAwareness', { partyId: l, level: 'met' });
  await call('directory.setAwareness', { partyId: s, level: 'knows_of' });
  await call('directory.linkParty', { fromId: colleague.id, toId: l, relation: 'assistant_of' });
  const merge = (await call('directory.proposeMerge', { survivorId: s, mergedId: l })).merge;

  const t = performance.now();
  const executed = await rpc(ctx.baseUrl, org.key, 'directory.executeMerge', { mergeId: merge.id, decision: 'merge' });
  const httpMs = performance.now() - t;
  if (executed.body.result.merge.status !== 'executed') throw new Error(`executeMerge: ${JSON.stringify(executed.body).slice(0, 300)}`);

  const { xid } = one(
    await ctx.db.query<{ xid: string }>('SELECT xmin::text AS xid FROM directory_merges WHERE org_id = $1 AND merge_id = $2', [org.orgId, merge.id]),
  );
  const touched: Record<string, number> = {};
  let foreignRows = 0;
  for (const [table, owned] of Object.entries(OWNED)) {
    const row = one(
      await ctx.db.query<{ n: number; other: number }>(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE NOT (${owned}))::int AS other FROM ${table}, (SELECT $2::text AS s, $3::text AS l, $4::text AS m) k
        WHERE org_id = $1 AND xmin = $5::text::xid`,
        [org.orgId, s, l, merge.id, xid],
      ),
    );
    if (row.n > 0) touched[table] = row.n;
    foreignRows += row.other;
  }
  // Other families' declared references to a party (books' roles…): rows written must point at the pair.
  for (const ref of partyRefs(DEPLOYED).flatMap((f) => f.refs)) {
    const row = one(
      await ctx.db.query<{ n: number; other: number }>(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE NOT (${ref.column} IN ($2, $3)))::int AS other FROM ${ref.table} WHERE org_id = $1 AND xmin = $4::text::xid`,
        [org.orgId, s, l, xid],
      ),
    );
    if (row.n > 0) touched[ref.table] = row.n;
    foreignRows += row.other;
  }
  // Deleted rows (a list membership moved to the survivor) are in the change log only.
  const deleted = one(
    await ctx.db.query<{ n: number; other: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE NOT (before->>'party_id' IN ($2, $3)))::int AS other
       FROM directory_merge_changes WHERE org_id = $1 AND merge_id = $4 AND op = 'delete'`,
      [org.orgId, s, l, merge.id],
    ),
  );
  if (deleted.n > 0) touched['deleted (change log)'] = deleted.n;
  foreignRows += deleted.other;
  return { mergeId: merge.id, score: merge.score, httpMs, touched, foreignRows, counts: executed.body.result.merge.preview?.counts ?? {} };
}

export async function mergeFigures(ctx: BenchContext, org: BenchOrg, plan: DirectoryPlan): Promise<MergeFigures> {
  const pairs: PairFigures[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const p = await onePair(ctx, org, plan, i);
    pairs.push(p);
    process.stderr.write(
      `[bench] 11. executeMerge ${p.mergeId} (score ${p.score}): ${p.httpMs.toFixed(1)} ms; wrote ${JSON.stringify(p.touched)}; rows not the pair's: ${p.foreignRows}\n`,
    );
  }
  return { pairs };
}
