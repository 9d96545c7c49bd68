import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../ai-gateway/audit.js';
import { setAiSettings } from '../../domain/ai-settings.js';
import { verifyCommand } from '../../cli/verify.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import { freshOrg, TestClient } from '../helpers/harness.js';
import { askServer, auditChain, fakeProvider, owedAnswer, sentInvoice, tamperAudit, type AskServer } from './kit.js';

/** The AI audit chain: hashing a client can recompute, append-only, verify (also from the CLI), bodies, GET /ops. */
let s: AskServer;
beforeAll(async () => {
  s = await askServer();
  s.provider.current = fakeProvider({ answer: owedAnswer });
});
afterAll(() => s.close());

/** An org of its own with an invoice and n audited asks; returns its client. */
async function orgWithAsks(n: number): Promise<{ client: TestClient; orgId: string; slug: string }> {
  const org = await freshOrg(s.runtime, 'aud');
  const client = new TestClient(s.app, org.adminKey);
  await sentInvoice(client);
  for (let i = 0; i < n; i++) expect((await client.ok('books.ask', { question: `Who owes us? (${i})` })).status).toBe('answered');
  return { client, orgId: org.orgId, slug: org.slug };
}

async function cliVerify(slug: string): Promise<{ ok: boolean; out: string }> {
  let out = '';
  const sink = new Writable({ write: (chunk, _enc, done) => ((out += chunk), done()) });
  const ok = await verifyCommand(s.runtime.db, { slug, out: sink, err: sink });
  return { ok, out };
}

describe('AI audit chain', () => {
  it('GET /ops serves the chain verbatim: a client recomputes every rowHash from canonical JSON', async () => {
    const { client, orgId } = await orgWithAsks(3);
    const chain = await auditChain(client);
    expect(chain.map((r) => r.seq)).toEqual([1, 2, 3]);
    let prev = '';
    for (const row of chain) {
      expect(row.prevHash).toBe(prev);
      expect(sha256Hex(canonicalJson({ prev, seq: row.seq, at: row.at, id: row.id, record: row.record }))).toBe(row.rowHash);
      prev = row.rowHash;
    }
    const verdict = await verifyAuditChain(s.runtime.db, orgId);
    expect(verdict).toEqual({ ok: true, count: 3, head: { seq: 3, rowHash: prev } });
    const page = await client.get('ops', { limit: 1 });
    expect(page.body.head).toEqual({ seq: 3, rowHash: prev });
  });

  it('concurrent asks of one org chain one after another', async () => {
    const { client, orgId } = await orgWithAsks(0);
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => client.ok('books.ask', { question: `Who owes us? #${i}` })));
    expect(results.map((r) => r.audit.seq).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await verifyAuditChain(s.runtime.db, orgId)).toMatchObject({ ok: true, count: 6 });
  });

  it('refuses UPDATE and DELETE of audit records', async () => {
    const { orgId } = await orgWithAsks(1);
    await expect(s.runtime.db.query(`UPDATE ai_audit SET cost_micro_usd = 0 WHERE org_id = $1`, [orgId])).rejects.toThrow(/append-only/);
    await expect(s.runtime.db.query('DELETE FROM ai_audit WHERE org_id = $1', [orgId])).rejects.toThrow(/append-only/);
  });

  it('verify (and the CLI) finds an edited record, an edited column and a missing tail', async () => {
    const edited = await orgWithAsks(3);
    expect(await cliVerify(edited.slug)).toMatchObject({
      ok: true,
      out: expect.stringMatching(new RegExp(`^ok\\s+${edited.slug} \\(AI audit\\): 3 records verified, head seq 3 [0-9a-f]{64}$`, 'm')),
    });
    await tamperAudit(s.runtime, async (q) => {
      await q.query(`UPDATE ai_audit SET record = replace(record, '"costMicroUsd":7500', '"costMicroUsd":1') WHERE org_id = $1 AND seq = 2`, [edited.orgId]);
    });
    expect(await verifyAuditChain(s.runtime.db, edited.orgId)).toMatchObject({ ok: false, count: 1, break: { seq: 2, kind: 'row_hash' } });
    const cli = await cliVerify(edited.slug);
    expect(cli.ok).toBe(false);
    expect(cli.out).toMatch(new RegExp(`^BROKEN ${edited.slug} \\(AI audit\\): first break at seq 2 \\(row_hash\\): audit seq 2: broken row`, 'm'));
    expect(cli.out).toMatch(new RegExp(`^ok\\s+${edited.slug}: \\d+ events verified`, 'm')); // the ledger itself is fine

    const column = await orgWithAsks(2);
    await tamperAudit(s.runtime, (q) => q.query('UPDATE ai_audit SET cost_micro_usd = 0 WHERE org_id = $1 AND seq = 1', [column.orgId]).then(() => undefined));
    expect(await verifyAuditChain(s.runtime.db, column.orgId)).toMatchObject({
      ok: false,
      break: { seq: 1, kind: 'row_hash', message: 'audit seq 1: column cost_micro_usd (0) disagrees with the hashed record (7500)' },
    });

    const truncated = await orgWithAsks(2);
    await tamperAudit(s.runtime, (q) => q.query('DELETE FROM ai_audit WHERE org_id = $1 AND seq = 2', [truncated.orgId]).then(() => undefined));
    expect(await verifyAuditChain(s.runtime.db, truncated.orgId)).toMatchObject({ ok: false, count: 1, break: { seq: 2, kind: 'gap' } });

    const relinked = await orgWithAsks(3);
    await tamperAudit(s.runtime, (q) =>
      q.query(`UPDATE ai_audit SET prev_hash = repeat('0', 64) WHERE org_id = $1 AND seq = 3`, [relinked.orgId]).then(() => undefined),
    );
    expect(await verifyAuditChain(s.runtime.db, relinked.orgId)).toMatchObject({ ok: false, count: 2, break: { seq: 3, kind: 'prev_hash' } });
  });

  it('keeps no bodies by default; redacted bodies once the org turns them on', async () => {
    const { client, slug } = await orgWithAsks(1);
    const [first] = await auditChain(client);
    expect(first.record.bodies).toBeNull();
    await setAiSettings(s.runtime.db, slug, { storeBodies: true });
    await client.ok('books.ask', { question: 'Did jo@example.com pay into account 062-000 12345678? TFN 123 456 782' });
    const [, second] = await auditChain(client);
    expect(second.record.bodies.question).toBe('Did [email] pay into account [number]? TFN [number]');
    expect(second.record.bodies.answer).toMatch(/owes \$1,100\.00\./);
    // The prompt hash is of the question as asked, not as kept.
    expect(second.record.promptHash).toBe(
      sha256Hex(canonicalJson({ question: 'Did jo@example.com pay into account 062-000 12345678? TFN 123 456 782', today: '2026-11-02' })),
    );
  });
});

describe('GET /ops', () => {
  it('pages newest first by default, or in chain order', async () => {
    const { client } = await orgWithAsks(3);
    const p1 = await client.get('ops', { limit: 2 });
    expect(p1.body.records.map((r: any) => r.seq)).toEqual([3, 2]);
    expect(p1.body.nextCursor).toBe(2);
    const p2 = await client.get('ops', { limit: 2, cursor: 2 });
    expect(p2.body.records.map((r: any) => r.seq)).toEqual([1]);
    expect(p2.body.nextCursor).toBeNull();
    const asc = await client.get('ops', { order: 'asc', limit: 2, cursor: 1 });
    expect(asc.body.records.map((r: any) => r.seq)).toEqual([2, 3]);
    expect(asc.body.nextCursor).toBeNull();
    expect((await client.get('ops', { limit: 500 })).body.error.message).toBe('limit: must be at most 200');
    expect((await client.get('ops', { order: 'sideways' })).status).toBe(400);
  });

  it('needs org.read, and shows only the caller org’s records', async () => {
    await s.client.ok('books.ask', { question: 'Who owes us?' }).catch(() => undefined);
    const denied = await s.client.get('ops', {}, { key: s.booksOnly.apiKey });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope org.read for /ops' });
    const asReader = await s.client.get('ops', {}, { key: s.reader.apiKey });
    expect(asReader.status).toBe(200);
    const mine = await orgWithAsks(1);
    const theirs = (await auditChain(mine.client)).map((r) => r.id);
    const ours = (await auditChain(s.client)).map((r) => r.id);
    expect(theirs).toHaveLength(1);
    expect(ours.some((id) => theirs.includes(id))).toBe(false);
  });
});
