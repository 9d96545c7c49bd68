import { createOrgs, rpc } from '../fixture.js';
import { latencies } from '../measure.js';
import { latencyRow } from '../report.js';
import type { BenchRun } from '../steps.js';
import { seedMembers } from './people.js';

/*
 * The files targets (docs/performance.md, Messaging and files): a folder page of a 10,000-child folder under 50 ms
 * p95, and a 1,000-block doc edit under 100 ms p95. The children are inserted in bulk as files.create writes them (a
 * folder's path plus each child); the doc is made and edited through the API, one call at a time, as a member (not
 * the creator: the role is computed).
 */

const CHILDREN = 10_000;
/** The design's sheet figure: 20,000 formulas recalculated by one write (a chain: A1, then A2 = A1+1, …). */
const FORMULAS = 20_000;
const SHEET_SAMPLES = Number(process.env.BENCH_SHEET_SAMPLES ?? 20);
const BLOCKS = 1_000;
const SAMPLES = Number(process.env.BENCH_FILES_SAMPLES ?? 200);
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/** 14: the drive's folder page and a doc edit (docs/performance.md). */
export async function filesStep(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const [org] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-files`);
  await seedMembers(ctx.db, org, 20, () => null, 'fil');
  const member = (await rpc(ctx.baseUrl, org.key, 'org.mintApiKey', { name: 'bench member', tier: 'member' })).body.result.apiKey as string;
  const folder = (await rpc(ctx.baseUrl, org.key, 'files.create', { kind: 'folder', name: 'Archive' })).body.result.file.id as string;
  log(`14. files: inserting ${CHILDREN} files into one folder`);
  await ctx.db.query(
    `INSERT INTO files (org_id, file_id, kind, name, parent_id, access_path, open_to_org, created_by, created_at, updated_by, updated_at)
     SELECT $1, 'fil_b' || md5(n::text), CASE WHEN n % 10 = 0 THEN 'folder' ELSE 'upload' END, 'Scan ' || lpad(n::text, 5, '0') || '.pdf', $2,
            ARRAY[$2, 'fil_b' || md5(n::text)], true, $3, now(), $3, now()
       FROM generate_series(1, $4::int) AS n`,
    [org.orgId, folder, org.actor, CHILDREN],
  );
  await ctx.db.query('ANALYZE files');
  const pages = ['first', 'deep'] as const;
  const figures: Record<string, Awaited<ReturnType<typeof latencies>>> = {};
  for (const kind of pages) {
    // A deep page starts from the cursor of the page before it, 5,000 files in.
    let cursor: string | undefined;
    if (kind === 'deep') {
      for (let i = 0; i < 50; i++)
        cursor = (await rpc(ctx.baseUrl, member, 'files.list', { parentId: folder, limit: 100, ...(cursor ? { cursor } : {}) })).body.result.nextCursor;
    }
    figures[kind] = await latencies(SAMPLES, async () => {
      const page = (await rpc(ctx.baseUrl, member, 'files.list', { parentId: folder, limit: 100, ...(cursor ? { cursor } : {}) })).body.result;
      if (page.files.length !== 100) throw new Error(`files.list: ${page.files.length} files on a page of 100`);
    });
    log(`14. folder page (${kind}): p50 ${figures[kind].p50Ms.toFixed(1)} p95 ${figures[kind].p95Ms.toFixed(1)} ms`);
  }

  const markdown = Array.from({ length: BLOCKS }, (_, i) => `Paragraph ${i + 1} of the contract, clause ${i + 1}.`).join('\n\n');
  const doc = (await rpc(ctx.baseUrl, member, 'files.create', { kind: 'doc', name: 'Long contract', content: { markdown } })).body.result.file.id as string;
  const read = (await rpc(ctx.baseUrl, member, 'files.docRead', { fileId: doc, format: 'text', limit: 500 })).body.result;
  const blocks = read.blocks as { id: string }[];
  let head = read.head as number;
  const edit = await latencies(SAMPLES, async (i) => {
    const block = blocks[(i * 37) % blocks.length];
    const out = await rpc(ctx.baseUrl, member, 'files.docWriteRevision', {
      fileId: doc,
      baseRevision: head,
      ops: [{ op: 'replace', blockId: block.id, markdown: `Edited paragraph ${i}.` }],
    });
    head = out.body.result.revision;
  });
  log(`14. 1,000-block doc edit: p50 ${edit.p50Ms.toFixed(1)} p95 ${edit.p95Ms.toFixed(1)} ms`);
  const sheet = await sheetRecalculation(run, member);
  run.raw.files = { children: CHILDREN, blocks: BLOCKS, folderPage: figures, docEdit: edit, sheet };
  for (const kind of pages) run.rows.push(latencyRow(`14 files.list ${kind} page of 100, 10k children`, figures[kind], 50));
  run.rows.push(latencyRow('14 files.docWriteRevision, 1,000 blocks', edit, 100));
}

/** A sheet of FORMULAS chained formulas made through files.create, then writes of A1 that recalculate every one. */
async function sheetRecalculation(run: BenchRun, key: string) {
  const { ctx } = run;
  const cells: Record<string, string> = { A1: '1' };
  for (let i = 2; i <= FORMULAS + 1; i++) cells[`A${i}`] = `=A${i - 1}+1`;
  const started = performance.now();
  const created = await rpc(ctx.baseUrl, key, 'files.create', { kind: 'sheet', name: 'Chain', content: { tabs: [{ title: 'Chain', cells }] } });
  const createMs = performance.now() - started;
  if (!created.body.ok) throw new Error(`files.create sheet: ${JSON.stringify(created.body).slice(0, 300)}`);
  const fileId = created.body.result.file.id as string;
  const write = await latencies(SHEET_SAMPLES, async (i) => {
    const out = await rpc(ctx.baseUrl, key, 'files.sheetWriteCells', { fileId, cells: [{ a1: 'A1', input: String(i + 2) }] });
    const last = (await rpc(ctx.baseUrl, key, 'files.sheetRead', { fileId, range: `A${FORMULAS + 1}` })).body.result.cells[0];
    if (!out.body.ok || last.value !== i + 2 + FORMULAS) throw new Error(`sheetWriteCells: A${FORMULAS + 1} reads ${JSON.stringify(last)}`);
  });
  log(
    `14. sheet of ${FORMULAS} formulas: made in ${createMs.toFixed(0)} ms; a write recalculating all: p50 ${write.p50Ms.toFixed(1)} p95 ${write.p95Ms.toFixed(1)} ms`,
  );
  run.rows.push({
    scenario: `14 files.sheetWriteCells recalculating ${FORMULAS / 1000}k formulas (+ a read)`,
    metric: 'p95',
    unit: 'ms',
    product: write.p95Ms,
    baseline: write.p50Ms,
    baselineLabel: 'p50',
    ratio: write.p95Ms / write.p50Ms,
    target: '< 1000 ms',
    met: write.p95Ms < 1000,
  });
  return { formulas: FORMULAS, createMs, write };
}
