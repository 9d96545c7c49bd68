import { Writable } from 'node:stream';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCommand } from '../../../cli/verify.js';
import { designLog } from '../../../domain/branding/index.js';
import { handler } from '../../../domain/core/handler.js';
import { buildCatalog } from '../../../mcp/catalog.js';
import { hiddenBecause, parseSelection } from '../../../mcp/toolsets.js';
import { META_TOOL_NAMES } from '../../../mcp/meta-tools.js';
import { method } from '../../../protocol/contract.js';
import { sha256Hex } from '../../../protocol/hashing.js';
import { chainHashInput } from '../../../ledger/record-chain.js';
import type { Queryable } from '../../../db/types.js';
import { eventsAfter, head, mutate, refused, rpc } from '../../helpers/calls.js';
import { castServer, type Cast } from '../../helpers/people.js';

/*
 * The design log and the pipeline's R writes (contract `writes`): one transaction, exactly one design record and
 * no ledger event, replayed by idempotencyId (other params: CONFLICT), redacted, served at GET /ops?source=design,
 * verified by `cli verify`, anchored by the next foundation save's designHead. The library's real R writes come with
 * the next part of branding; here an undeployed R method of the registry is deployed for the test with a handler
 * that writes through the same machinery.
 */

const amend = method({
  summary: 'Test: an R write that records one design record.',
  params: z.strictObject({ templateId: z.string(), idempotencyId: z.string().min(1).max(200), note: z.string().optional(), fail: z.boolean().optional() }),
  result: z.strictObject({ templateId: z.string(), seq: z.number().int() }),
  writes: true,
  example: { templateId: 'tpl_0123456789abcdef', idempotencyId: 'amend-1' },
});
const amendTemplate = handler(
  amend,
  async (ctx, p) => {
    const r = await ctx.record('branding.template.amend', p.templateId, { templateId: p.templateId, revision: 2, note: p.note ?? null });
    if (p.fail) throw new Error('after recording: the call rolls back');
    return { templateId: p.templateId, seq: r.seq };
  },
  { writeLog: designLog },
);
const silent = handler({ ...amend, summary: 'Test: an R write that forgets to record.' }, async (_ctx, p) => ({ templateId: p.templateId, seq: 0 }), {
  writeLog: designLog,
});

let c: Cast;
beforeAll(async () => {
  c = await castServer({
    extraHandlers: new Map([
      ['branding.amendTemplate', amendTemplate],
      ['branding.undo', silent],
    ]),
  });
});
afterAll(() => c.s.close());

/** The test's R write, answered ok (its contract is the test's own, not a deployed one). */
const write = async (params: Record<string, unknown>) => {
  const res = await rpc(c.s, 'branding.amendTemplate', params);
  expect(res.body.ok, res.raw).toBe(true);
  return res.body.result;
};

const ops = async (query: Record<string, string | number> = {}) => {
  const res = await c.s.client.get('ops', { source: 'design', order: 'asc', ...query });
  expect(res.status, res.raw).toBe(200);
  return res.body;
};

describe('R writes and the design log', () => {
  it('one record, no event; the same idempotencyId and params: the stored result; other params: CONFLICT; bodies redacted', async () => {
    const before = await head(c.s);
    const params = { templateId: 'tpl_0123456789abcdef', idempotencyId: 'amend-1', note: 'CANARY-note-7' };
    const first = await write(params);
    expect(first).toEqual({ templateId: params.templateId, seq: 1 });
    expect(await write(params)).toEqual(first);
    await refused(c.s, 'branding.amendTemplate', { ...params, templateId: 'tpl_other' }, 'CONFLICT', {
      message: /^idempotencyId: already used for branding.amendTemplate with different params/,
    });
    expect(await eventsAfter(c.s, before)).toEqual([]);
    const page = await ops();
    expect(page.records).toHaveLength(1);
    const [row] = page.records;
    expect(row.record).toMatchObject({
      method: 'branding.amendTemplate',
      actor: c.owner.id,
      kind: 'branding.template.amend',
      entityId: params.templateId,
      payload: { templateId: params.templateId, revision: 2 },
    });
    expect(JSON.stringify(page)).not.toContain('CANARY');
    expect(row.id).toMatch(/^dsg_/);
    expect(row.rowHash).toBe(sha256Hex(chainHashInput('', 1, row.at, row.id, canonical(row.record))));
    expect(page.head).toEqual({ seq: 1, rowHash: row.rowHash });
  });

  it('a handler that fails after recording, or never records, leaves no record', async () => {
    const res = await rpc(c.s, 'branding.amendTemplate', { templateId: 'tpl_x', idempotencyId: 'amend-2', fail: true });
    expect(res.status).toBe(500);
    const none = await rpc(c.s, 'branding.undo', { templateId: 'tpl_x', idempotencyId: 'undo-1' });
    expect(none.status).toBe(500);
    expect((await ops()).head.seq).toBe(1);
    await expect(
      c.s.runtime.pipeline.readAs(await c.s.runtime.pipeline.principalFor(c.s.org.adminKey), 'branding.amendTemplate', { templateId: 't', idempotencyId: 'r' }),
    ).rejects.toThrow(/writes \(an R method with a write log\); it is not run as a read/);
  });

  it('the next foundation save carries the head; verify checks the chain; a tampered row breaks it', async () => {
    await write({ templateId: 'tpl_two', idempotencyId: 'amend-3' });
    const page = await ops();
    const { event } = await mutate(c.s, 'branding.saveFoundation', { baseVersion: 0, patch: { name: 'Acme' } }, 'branding.foundation.save');
    expect(event.payload.designHead).toEqual({ seq: 2, hash: page.head.rowHash });
    let out = '';
    const sink = new Writable({ write: (chunk, _e, done) => ((out += String(chunk)), done()) });
    const slug = c.s.org.slug;
    expect(await verifyCommand(c.s.runtime.db, { slug, out: sink, err: sink })).toBe(true);
    expect(out).toContain(`ok     ${slug} (design log): 2 records verified, head seq 2 ${page.head.rowHash}`);
    // A row edited at rest: its hash no longer holds (read through a database that alters seq 2's record).
    const tampered: Queryable = {
      query: async (sql, args) => {
        const rows = await c.s.runtime.db.query(sql, args);
        return rows.map((r: any) =>
          r.seq !== undefined && Number(r.seq) === 2 && r.record ? { ...r, record: r.record.replace('tpl_two', 'tpl_tw0') } : r,
        ) as never;
      },
    };
    const verdict = await designLog.verify(tampered, c.s.org.orgId);
    expect(verdict).toMatchObject({ ok: false, break: { seq: 2, kind: 'row_hash' } });
    expect(await designLog.verify(c.s.runtime.db, c.s.org.orgId)).toMatchObject({ ok: true, count: 2 });
  });

  it('MCP lists an R write as a write: not read-only, hidden in a read-only session', async () => {
    const catalog = buildCatalog(c.s.runtime.pipeline.handlers, c.s.runtime.pipeline.reads);
    const entry = catalog.byTarget.get('branding.amendTemplate')!;
    expect(entry.readOnly).toBe(false);
    expect(entry.definition.annotations.readOnlyHint).toBe(false);
    expect(catalog.byTarget.get('branding.getFoundation')!.readOnly).toBe(true);
    const principal = await c.s.runtime.pipeline.principalFor(c.s.org.adminKey);
    const readOnly = parseSelection({ toolsets: 'all', readOnly: 'true' }, META_TOOL_NAMES);
    expect(hiddenBecause(entry, principal, readOnly)).toBe('readOnly');
    expect(hiddenBecause(catalog.byTarget.get('branding.getFoundation')!, principal, readOnly)).toBeUndefined();
  });
});

function canonical(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}
