import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signaturePayloadHash, signatureToken } from '../../../domain/approval/signature.js';
import { META_TOOLS } from '../../../mcp/meta-tools.js';
import { booksServer, idem, refusalApproval, type BooksServer } from '../books/setup.js';
import { head, refused } from '../../helpers/calls.js';
import { connectInMemory, payRuns, structured, toolError, type DraftRun } from '../../mcp/fixtures.js';
import { one } from '../../../db/types.js';

/*
 * The signature law (issue 13): a proof is only ever an approval bound to a hold the server recorded, whose summary
 * and held call the server wrote, and what runs is what its human read. An agent cannot get a human to approve its
 * own words (another subject kind, a near-miss of `books.signature`, a hash computed without a hold), over HTTP, MCP
 * tools or invoke_write; and an approval cannot be spent after the act it showed has changed.
 */

let s: BooksServer;
let draftRun: () => Promise<DraftRun>;
const ORIGIN = () => new URL(s.runtime.deps.config.publicUrl).origin;

beforeAll(async () => {
  s = await booksServer('2026-10-15');
  draftRun = payRuns(s);
});
afterAll(() => s.close());

const agent = () => s.agent.apiKey;
const approver = () => s.approver.apiKey;

async function payRun(runId: string): Promise<{ status: string; journal_id: string | null }> {
  return one(
    await s.runtime.db.query<{ status: string; journal_id: string | null }>('SELECT status, journal_id FROM books_pay_runs WHERE org_id = $1 AND run_id = $2', [
      s.org.orgId,
      runId,
    ]),
  );
}

/** A real drafted pay run, held by the agent: the hold frame. */
async function heldRun(): Promise<{ run: DraftRun; hold: any }> {
  const run = await draftRun();
  const hold = await s.client.ok('books.payrollSign', { runId: run.id }, { key: agent(), idem: idem('hold') });
  expect(hold.status).toBe('approval_required');
  return { run, hold };
}

const file = (hold: any, subject: Record<string, unknown>, actionClass = hold.approval.actionClass, payloadHash = hold.approval.payloadHash) => ({
  actionClass,
  payloadHash,
  subject: { subjectId: hold.subjectId, ...subject },
});

/** Subject kinds that are not exactly `books.signature`: each is refused, naming subject.kind. */
const NEAR_MISSES = [
  'books.signature ',
  ' books.signature',
  'BOOKS.SIGNATURE',
  'books.Signature',
  'books.signatures',
  'board.signature',
  'books.signature\u200b',
  'books.sign\u0430ture',
  'books. signature',
];

describe('the issue’s attack over HTTP', () => {
  it('an approval filed under another kind, with the agent’s own summary, is refused and releases nothing', async () => {
    const { run, hold } = await heldRun();
    for (const kind of NEAR_MISSES) {
      const message = await refused(s.client, 'approval.request', file(hold, { kind, summary: 'Pay run: gross $10.00' }), 'BAD_REQUEST', { key: agent() });
      expect(message, JSON.stringify(kind)).toMatch(/^subject\.kind: /);
      expect(message).toContain('"books.signature"');
    }
    // Any other kind, for a held act's hash: refused, so no human is asked to approve the agent's words for it.
    for (const kind of ['anything', 'books.review']) {
      const message = await refused(s.client, 'approval.request', file(hold, { kind, summary: 'gross $10.00' }), 'BAD_REQUEST', {
        message: /^subject\.kind: /,
        key: agent(),
      });
      expect(message).toMatch(/books\.payrollSign/);
    }
    // Nor under a class that names no method: the hash is a held act, filed only as what its hold frame names.
    const generic = file(hold, { kind: 'acme.review', summary: 'gross $10.00' }, 'acme.payroll_sign');
    await refused(s.client, 'approval.request', generic, 'BAD_REQUEST', {
      message: /^subject\.kind: payloadHash \w+ is a held act of books\.payrollSign: .*"books\.signature"/,
      key: agent(),
    });
    const pending = (await s.client.ok('approval.list', { status: 'pending', limit: 200 })).approvals.filter((a: any) => a.subject.subjectId === run.id);
    expect(pending).toEqual([]);
    expect(await payRun(run.id)).toMatchObject({ status: 'DRAFT', journal_id: null });
  });

  it('a payload hash computed without a hold binds nothing: refused as a signature, unusable as anything else', async () => {
    const run = await draftRun();
    const hash = signaturePayloadHash('books.payroll_sign', run.id, { runId: run.id });
    const as = (kind: string, actionClass = 'books.payroll_sign') => ({
      actionClass,
      payloadHash: hash,
      subject: { kind, subjectId: run.id, summary: 'gross $10.00' },
    });
    await refused(s.client, 'approval.request', as('books.signature'), 'NOT_FOUND', { message: /held act with payloadHash/, key: agent() });
    await refused(s.client, 'approval.request', as('anything'), 'BAD_REQUEST', {
      message: /^subject\.kind: actionClass books\.payroll_sign is the act books\.payrollSign/,
      key: agent(),
    });

    // Under a class that names no method it files, but bound to nothing: no held call, no token, never a proof.
    const filed = await s.client.ok('approval.request', as('anything', 'acme.payroll_sign'), { key: agent() });
    expect(filed).toMatchObject({ heldAct: null, subject: { summary: 'gross $10.00' } });
    const decided = await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: approver() });
    expect(decided.status).toBe('approved');
    expect(decided.signatureToken).toBeUndefined();
    await refused(s.client, 'books.payrollSign', { runId: run.id, approvalId: filed.approvalId }, 'CONFLICT', {
      message: /is not bound to a held act/,
      key: agent(),
      idem: idem(),
    });
    // Even once the act is held for that very hash, the approval stays what it was: bound to nothing.
    const hold = await s.client.ok('books.payrollSign', { runId: run.id }, { key: agent(), idem: idem() });
    expect(hold.approval.payloadHash).toBe(hash);
    await refused(s.client, 'books.payrollSign', { runId: run.id, approvalId: filed.approvalId }, 'CONFLICT', {
      message: /is not bound to a held act/,
      key: agent(),
      idem: idem(),
    });
    expect(await payRun(run.id)).toMatchObject({ status: 'DRAFT', journal_id: null });
  });

  it('an approved approval bound to no hold is never a proof, by approvalId or by a valid signatureToken', async () => {
    const { run, hold } = await heldRun();
    // As filed by the old server (or any path around approval.request): the act's class, subject and hash, the
    // agent's summary under a near-miss kind, approved by a human, and no binding.
    const approvalId = `apr_unbound${run.id.slice(4)}`;
    await s.runtime.db.query(
      `INSERT INTO approvals (org_id, approval_id, action_class, payload_hash, subject_kind, subject_id, summary, status, requested_by, expires_at, decided_by, decided_at)
       VALUES ($1, $2, 'books.payroll_sign', $3, 'books.signature ', $4, 'gross $10.00', 'approved', $5, now() + interval '1 hour', $6, now())`,
      [s.org.orgId, approvalId, hold.approval.payloadHash, run.id, s.agent.principal.id, s.approver.principal.id],
    );
    await refused(s.client, 'books.payrollSign', { runId: run.id, approvalId }, 'CONFLICT', {
      message: /is not bound to a held act \(filed as subject\.kind "books\.signature "/,
      key: agent(),
      idem: idem(),
    });
    const token = signatureToken(s.runtime.deps.signingKey, {
      orgId: s.org.orgId,
      actionClass: 'books.payroll_sign',
      subjectId: run.id,
      payloadHash: hold.approval.payloadHash,
      approvalId,
    });
    await refused(s.client, 'books.payrollSign', { runId: run.id, signatureToken: token }, 'CONFLICT', {
      message: /is not bound to a held act/,
      key: agent(),
      idem: idem(),
    });
    expect((await s.client.ok('approval.get', { approvalId })).signatureToken).toBeUndefined();
    expect(await payRun(run.id)).toMatchObject({ status: 'DRAFT', journal_id: null });
  });
});

describe('the same attack over MCP', () => {
  it('approval_request and invoke_write refuse the near-miss kinds; an unbound approval does not release books_payrollSign', async () => {
    const mcp = await connectInMemory(s.runtime, agent(), { toolsets: 'payroll,approval' });
    try {
      const run = await draftRun();
      const held = structured(await mcp.client.callTool({ name: 'books_payrollSign', arguments: { runId: run.id } }));
      expect(held.status).toBe('approval_required');
      const attack = (kind: string) => ({
        actionClass: held.approval.actionClass,
        payloadHash: held.approval.payloadHash,
        subject: { kind, subjectId: run.id, summary: 'gross $10.00' },
      });
      const viaTool = toolError(await mcp.client.callTool({ name: 'approval_request', arguments: attack('books.signature ') }));
      expect(viaTool).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^subject\.kind: /) });
      const viaWrite = toolError(await mcp.client.callTool({ name: META_TOOLS.write, arguments: { name: 'approval.request', params: attack('anything') } }));
      expect(viaWrite).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^subject\.kind: /) });

      // The approval the server filed for the hold carries the server's summary and the held call.
      const auto = await s.client.ok('approval.get', { approvalId: held.approvalId }, { key: approver() });
      expect(auto).toMatchObject({
        subject: { kind: 'books.signature', summary: held.approval.subject.summary },
        heldAct: { method: 'books.payrollSign', params: { runId: run.id } },
      });
      // Filing it again with the agent's words gives back that approval, words unchanged.
      const refiled = structured(await mcp.client.callTool({ name: 'approval_request', arguments: attack('books.signature') }));
      expect(refiled).toMatchObject({ approvalId: held.approvalId, subject: { summary: held.approval.subject.summary } });

      // A generic approval, approved by a human, passed through the tool and through invoke_write: CONFLICT.
      const other = structured(
        await mcp.client.callTool({
          name: 'approval_request',
          arguments: { ...attack('anything'), actionClass: 'acme.payroll_sign', payloadHash: 'b'.repeat(64) },
        }),
      );
      expect(other.heldAct).toBeNull();
      await s.client.ok('approval.resolve', { approvalId: other.approvalId, decision: 'approve' }, { key: approver() });
      expect(toolError(await mcp.client.callTool({ name: 'books_payrollSign', arguments: { runId: run.id, approvalId: other.approvalId } }))).toMatchObject({
        code: 'CONFLICT',
        message: expect.stringMatching(/is not bound to a held act/),
      });
      const written = toolError(
        await mcp.client.callTool({
          name: META_TOOLS.write,
          arguments: { name: 'books.payrollSign', params: { runId: run.id, approvalId: other.approvalId } },
        }),
      );
      expect(written.code).toBe('CONFLICT');
      expect(await payRun(run.id)).toMatchObject({ status: 'DRAFT', journal_id: null });
    } finally {
      await mcp.close();
    }
  });
});

describe('what the human approved is what runs', () => {
  it('a pay run whose figures changed after the approval is refused, naming what was shown and what would run', async () => {
    const { run, hold } = await heldRun();
    const filed = await s.client.ok('approval.request', file(hold, { kind: 'books.signature', summary: 'Pay run: gross $10.00' }), { key: agent() });
    expect(filed.subject.summary).toBe(hold.approval.subject.summary);
    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: approver() });
    // The run is re-drafted to other figures under the same runId (and payload hash) after the human decided.
    await s.runtime.db.query(
      'UPDATE books_pay_runs SET gross_cents = gross_cents + 1000000, net_cents = net_cents + 1000000 WHERE org_id = $1 AND run_id = $2',
      [s.org.orgId, run.id],
    );
    const message = await refused(s.client, 'books.payrollSign', { runId: run.id, approvalId: filed.approvalId }, 'CONFLICT', { key: agent(), idem: idem() });
    expect(message).toContain(`showed the human "${hold.approval.subject.summary}"`);
    expect(message).toMatch(/would now run as "Pay run .*gross \$/);
    expect(await payRun(run.id)).toMatchObject({ status: 'DRAFT', journal_id: null });
    expect((await s.client.ok('approval.get', { approvalId: filed.approvalId })).used).toBe(false);
  });

  it('a re-hold with other words never rewrites a filed approval; filing again asks the human about the new words', async () => {
    const { run, hold } = await heldRun();
    const first = await s.client.ok('approval.request', file(hold, { kind: 'books.signature', summary: 'x' }), { key: agent() });
    await s.runtime.db.query('UPDATE books_pay_runs SET gross_cents = gross_cents + 500, net_cents = net_cents + 500 WHERE org_id = $1 AND run_id = $2', [
      s.org.orgId,
      run.id,
    ]);
    const again = await s.client.ok('books.payrollSign', { runId: run.id }, { key: agent(), idem: idem() });
    expect(again.approval.payloadHash).toBe(hold.approval.payloadHash);
    expect(again.approval.subject.summary).not.toBe(hold.approval.subject.summary);
    // The pending approval still shows exactly what it showed; a new filing is a new approval with the new words.
    expect((await s.client.ok('approval.get', { approvalId: first.approvalId })).subject.summary).toBe(hold.approval.subject.summary);
    const second = await s.client.ok('approval.request', file(again, { kind: 'books.signature', summary: 'x' }), { key: agent() });
    expect(second.approvalId).not.toBe(first.approvalId);
    expect(second.subject.summary).toBe(again.approval.subject.summary);
    await s.client.ok('approval.resolve', { approvalId: first.approvalId, decision: 'approve' }, { key: approver() });
    await refused(s.client, 'books.payrollSign', { runId: run.id, approvalId: first.approvalId }, 'CONFLICT', {
      message: /showed the human/,
      key: agent(),
      idem: idem(),
    });
    await s.client.ok('approval.resolve', { approvalId: second.approvalId, decision: 'approve' }, { key: approver() });
    const done = await s.client.ok('books.payrollSign', { runId: run.id, approvalId: second.approvalId }, { key: agent(), idem: idem() });
    expect(done).toMatchObject({ changed: true, approvalId: second.approvalId, payRun: { status: 'POSTED' } });
  });

  it('a reminder whose amount due changed after the approval is refused (a payment came in)', async () => {
    const inv = (await s.client.ok('books.invoiceDraft', { payeeName: 'Slow Payer', description: 'Work', totalCents: 55_000, dueDays: 0 })).invoice;
    await s.client.ok('books.invoiceSend', { id: inv.id });
    await s.client.ok('books.invoiceChaseStep', { id: inv.id, step: 1 });
    const hold = await s.client.ok('books.invoiceChaseStep', { id: inv.id, step: 2 }, { key: agent(), idem: idem() });
    expect(hold.approval.subject.summary).toMatch(/: \$550\.00 due 2026-10-15$/);
    const filed = await s.client.ok('approval.request', file(hold, { kind: 'books.signature', summary: 'x' }), { key: agent() });
    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: approver() });
    await s.client.ok('books.invoiceRecordPayment', { id: inv.id, amountCents: 25_000 });
    const message = await refused(s.client, 'books.invoiceChaseStep', { id: inv.id, step: 2, approvalId: filed.approvalId }, 'CONFLICT', {
      key: agent(),
      idem: idem(),
    });
    expect(message).toMatch(/\$550\.00 due.*would now run as ".*\$300\.00 due/);
    expect((await s.client.ok('books.invoices', { limit: 200 })).invoices.find((i: any) => i.id === inv.id).chaseStep).toBe(1);
  });

  it('PB-B1: the refused act’s recorded hold binds like a hold; filing its hash under another kind is refused', async () => {
    const bill = (
      await s.client.ok('books.billCapture', {
        supplierName: `Fitout ${idem('co')}`,
        reference: idem('F'),
        issueDate: '2026-10-01',
        dueDate: '2026-10-31',
        totalCents: 660_000,
      })
    ).bill;
    const res = await s.client.rpc('books.billApprove', { id: bill.id }, { key: agent(), idem: idem() });
    expect(res.body.error.code).toBe('GOVERNANCE_NOT_READY');
    const named = refusalApproval(res.body.error.message, 'books.bill_approve', bill.id);
    await refused(
      s.client,
      'approval.request',
      { ...named, subject: { kind: 'anything', subjectId: bill.id, summary: 'Approve bill for $1.00' } },
      'BAD_REQUEST',
      { message: /^subject\.kind: /, key: agent() },
    );
    const filed = await s.client.ok('approval.request', { ...named, subject: { ...named.subject, summary: 'Approve bill for $1.00' } }, { key: agent() });
    expect(filed.subject.summary).toMatch(/^Approve bill .* for \$6,600\.00 incl\. GST/);
    expect(filed.heldAct).toEqual({ method: 'books.billApprove', params: { id: bill.id } });
  });
});

describe('every other way in', () => {
  it('an approval filed by another principal for the hold is bound to it and shows the server’s words', async () => {
    const { run, hold } = await heldRun();
    const other = (await s.client.mint({ tier: 'agent' }, 'other agent')).apiKey;
    const filed = await s.client.ok('approval.request', file(hold, { kind: 'books.signature', summary: 'gross $10.00' }), { key: other });
    expect(filed).toMatchObject({ subject: { summary: hold.approval.subject.summary }, heldAct: { method: 'books.payrollSign', params: { runId: run.id } } });
    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: approver() });
    // The proof is of the act the human read, whoever filed it: the holder's retry runs exactly that act, once.
    const done = await s.client.ok('books.payrollSign', { runId: run.id, approvalId: filed.approvalId }, { key: agent(), idem: idem() });
    expect(done).toMatchObject({ changed: true, payRun: { status: 'POSTED' } });
    await refused(s.client, 'books.payrollSign', { runId: run.id, approvalId: filed.approvalId }, 'GOVERNANCE_NOT_READY', {
      message: /already used/,
      key: other,
      idem: idem(),
    });
  });

  it('an expired hold binds nothing; the approval of a fresh hold expires with it', async () => {
    const { hold } = await heldRun();
    await s.runtime.db.query(`UPDATE signature_holds SET expires_at = now() - interval '1 second' WHERE org_id = $1 AND payload_hash = $2`, [
      s.org.orgId,
      hold.approval.payloadHash,
    ]);
    await refused(s.client, 'approval.request', file(hold, { kind: 'books.signature', summary: 'x' }), 'GOVERNANCE_NOT_READY', {
      message: /the hold expired/,
      key: agent(),
    });
    const again = await s.client.ok('books.payrollSign', { runId: hold.subjectId }, { key: agent(), idem: idem() });
    const filed = await s.client.ok('approval.request', file(again, { kind: 'books.signature', summary: 'x' }), { key: agent() });
    const row = one(
      await s.runtime.db.query<{ expires_at: string }>('SELECT expires_at FROM signature_holds WHERE org_id = $1 AND payload_hash = $2', [
        s.org.orgId,
        hold.approval.payloadHash,
      ]),
    );
    expect(filed.expiresAt).toBe(row.expires_at);
  });
});

describe('the approval row', () => {
  /** An approved copy of `approvalId` written around the server (as a damaged or forged record would be). */
  async function copyApproved(approvalId: string, suffix: string, held: { method?: string; params?: unknown }): Promise<string> {
    const id = `${approvalId}${suffix}`;
    await s.runtime.db.query(
      `INSERT INTO approvals (org_id, approval_id, action_class, payload_hash, subject_kind, subject_id, summary, status, requested_by, expires_at,
                              decided_by, decided_at, held_method, held_params, held_at)
       SELECT org_id, $2, action_class, payload_hash, subject_kind, subject_id, summary, 'approved', requested_by, expires_at, $3, now(),
              coalesce($4, held_method), coalesce($5::jsonb, held_params), held_at
         FROM approvals WHERE approval_id = $1`,
      [approvalId, id, s.approver.principal.id, held.method ?? null, held.params === undefined ? null : JSON.stringify(held.params)],
    );
    return id;
  }

  it('never changes what its human was shown; a copy bound to another call or method proves nothing', async () => {
    const { run, hold } = await heldRun();
    const filed = await s.client.ok('approval.request', file(hold, { kind: 'books.signature', summary: 'x' }), { key: agent() });
    for (const [column, value] of [
      ['summary', 'gross $10.00'],
      ['subject_kind', 'anything'],
      ['held_params', '{"runId":"pay_other"}'],
      ['held_method', null],
    ] as const) {
      await expect(s.runtime.db.query(`UPDATE approvals SET ${column} = $2 WHERE approval_id = $1`, [filed.approvalId, value]), column).rejects.toThrow(
        /keeps what its human was shown/,
      );
    }
    const otherParams = await copyApproved(filed.approvalId, 'p', { params: { runId: 'pay_someotherrun0000' } });
    await refused(s.client, 'books.payrollSign', { runId: run.id, approvalId: otherParams }, 'CONFLICT', {
      message: /does not hash to its payloadHash/,
      key: agent(),
      idem: idem(),
    });
    const otherMethod = await copyApproved(filed.approvalId, 'm', { method: 'books.taxSignLodge' });
    await refused(s.client, 'books.payrollSign', { runId: run.id, approvalId: otherMethod }, 'CONFLICT', {
      message: /was filed for a hold of books\.taxSignLodge, not books\.payrollSign/,
      key: agent(),
      idem: idem(),
    });
    expect(await payRun(run.id)).toMatchObject({ status: 'DRAFT', journal_id: null });
  });
});

describe('the inbox', () => {
  it('shows only the server’s summary and held call for a held pay run, never the agent’s words', async () => {
    const { run, hold } = await heldRun();
    await s.client.rpc('approval.request', file(hold, { kind: 'books.signature ', summary: 'Pay run: gross $10.00' }), { key: agent() });
    await s.client.rpc('approval.request', file(hold, { kind: 'anything', summary: 'Pay run: gross $10.00' }), { key: agent() });
    const filed = await s.client.ok('approval.request', file(hold, { kind: 'books.signature', summary: 'Pay run: gross $10.00' }), { key: agent() });

    const signIn = await s.app.inject({
      method: 'POST',
      url: '/approvals/api/session',
      headers: { 'content-type': 'application/json', origin: ORIGIN() },
      payload: { apiKey: approver() },
    });
    expect(signIn.statusCode, signIn.body).toBe(200);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0];
    const list = (await s.app.inject({ method: 'GET', url: '/approvals/api/approvals?view=pending', headers: { cookie } })).json().result.approvals;
    const mine = list.filter((a: any) => a.subject.subjectId === run.id);
    expect(mine.map((a: any) => a.approvalId)).toEqual([filed.approvalId]);
    expect(mine[0].subject.summary).toBe(hold.approval.subject.summary);
    expect(mine[0].plain.title).toBe('Sign a pay run');
    const facts = Object.fromEntries(mine[0].plain.facts.map((f: any) => [f.label, f.value]));
    expect(facts['Gross wages']).not.toBe('$10.00');
    expect(hold.approval.subject.summary).toContain(`gross ${facts['Gross wages']}`);
    const one = (await s.app.inject({ method: 'GET', url: `/approvals/api/approvals/${filed.approvalId}`, headers: { cookie } })).json().result;
    expect(one).toMatchObject({ heldAct: { method: 'books.payrollSign', params: { runId: run.id } }, hashMatches: true });
    expect(await head(s.client)).toBeGreaterThan(0);
  });
});
