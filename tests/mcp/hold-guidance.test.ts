import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/harness.js';
import { connectInMemory, mcpTestServer, payRuns, structured, toolError, type Connected } from './fixtures.js';

/*
 * One hold path over MCP, in MCP's words: a PB-B1 refusal is presented and filed like a hold; a hold's message
 * names no HTTP route or header and never asks to file what the server filed; a retry before the decision says
 * to wait with approval_wait; after a rejection the agent is told to stop and relay it verbatim; approval_wait
 * names the exact retry call.
 */

let s: TestServer;
let agentKey: string;
let approverKey: string;
let agent: Connected;
let nextPayRun: () => Promise<{ id: string }>;

const call = (name: string, args: Record<string, unknown> = {}) => agent.client.callTool({ name, arguments: args });
const HTTP_WORDS = /x-idempotency-key|GET \/api|\/api\/v1|File approval\.request|file approval\.request/;

beforeAll(async () => {
  s = await mcpTestServer();
  agentKey = (await s.client.mint({ tier: 'agent' }, 'guided agent')).apiKey;
  approverKey = (await s.client.mint({ tier: 'approver' }, 'finance lead')).apiKey;
  agent = await connectInMemory(s.runtime, agentKey, { toolsets: 'payables,payroll' });
  nextPayRun = payRuns(s);
});
afterAll(async () => {
  await agent.close();
  await s.close();
});

describe('one hold path over MCP', () => {
  it('PB-B1: a refused bill approval is presented like a hold, its approval filed with a summary; the human approves and the retry approves the bill', async () => {
    const bill = (
      await s.client.ok('books.billCapture', {
        supplierName: 'Brand New Supplies',
        reference: 'BN-1',
        issueDate: '2026-10-01',
        dueDate: '2026-10-31',
        totalCents: 45_000,
      })
    ).bill;
    const refused = structured(await call('books_billApprove', { id: bill.id }));
    expect(refused).toMatchObject({ status: 'approval_required', subjectId: bill.id, approvalStatus: 'pending' });
    expect(refused.approval).toMatchObject({
      actionClass: 'books.bill_approve',
      subject: { kind: 'books.signature', subjectId: bill.id },
      completion: 'retry',
    });
    expect(refused.approval.subject.summary.length).toBeGreaterThan(5);
    expect(refused.approvalId).toMatch(/^apr_/);
    expect(refused.message).toMatch(
      /^Refused, not executed: billApprove: bill .* rule PB-B1\. The server already filed the approval for you\. Relay this to your user; never report the act as done\.$/,
    );
    expect(refused.message).not.toMatch(HTTP_WORDS);
    // The approval the server filed is the one a human sees, with the hold's summary.
    const view = await s.client.ok('approval.get', { approvalId: refused.approvalId }, { key: approverKey });
    expect(view.subject.summary).toBe(refused.approval.subject.summary);

    await s.client.ok('approval.resolve', { approvalId: refused.approvalId, decision: 'approve' }, { key: approverKey });
    const waited = structured(await call('approval_wait', { approvalId: refused.approvalId, timeoutMs: 0 }));
    expect(waited.next).toBe(
      `Approved by ${waited.decidedBy}. Now call books_billApprove with ${JSON.stringify({ id: bill.id, approvalId: refused.approvalId })} (no idempotencyKey, or a new one).`,
    );
    const done = structured(await call('books_billApprove', { id: bill.id, approvalId: refused.approvalId }));
    expect(done).toMatchObject({ bill: { id: bill.id, status: 'AUTHORISED' }, approvalId: refused.approvalId, changed: true });
  });

  it('a hold speaks MCP; a retry before the decision names approval_wait; approval_wait names the exact retry, which posts the run', async () => {
    const run = await nextPayRun();
    const hold = structured(await call('books_payrollSign', { runId: run.id }));
    expect(hold.message).toMatch(
      /^Held, not executed: Pay run .* needs a human's approval \(ledger #[0-9a-f]{8}\)\. The server already filed the approval for you\./,
    );
    expect(hold.message).not.toMatch(HTTP_WORDS);
    expect(hold.next).not.toMatch(HTTP_WORDS);

    const early = toolError(await call('books_payrollSign', { runId: run.id, approvalId: hold.approvalId }));
    expect(early).toEqual({
      code: 'GOVERNANCE_NOT_READY',
      message: `Not executed: approval ${hold.approvalId} is still pending a human decision (${hold.url}). Call approval_wait with approvalId "${hold.approvalId}" until it is decided, then call books_payrollSign again with the same arguments.`,
    });
    const pending = structured(await call('approval_wait', { approvalId: hold.approvalId, timeoutMs: 0 }));
    expect(pending).toMatchObject({ status: 'pending', timedOut: true });
    expect(pending.next).toMatch(/^Still pending a human decision .* Call approval_wait with approvalId "apr_\w+" again; do not retry the act meanwhile\.$/);

    await s.client.ok('approval.resolve', { approvalId: hold.approvalId, decision: 'approve' }, { key: approverKey });
    const approved = structured(await call('approval_wait', { approvalId: hold.approvalId, timeoutMs: 1000 }));
    const exact = /Now call books_payrollSign with (\{.*\}) \(no idempotencyKey/.exec(approved.next);
    expect(exact, approved.next).not.toBeNull();
    const args = JSON.parse(exact![1]);
    expect(args).toEqual({ runId: run.id, approvalId: hold.approvalId });
    expect(structured(await call('books_payrollSign', args))).toMatchObject({ payRun: { id: run.id, status: 'POSTED' } });
    const used = structured(await call('approval_wait', { approvalId: hold.approvalId, timeoutMs: 0 }));
    expect(used.next).toMatch(/^Approved and already used: the act ran/);
    // A spent proof is left out of the agent's reads (HTTP still shows it to the requester).
    const got = structured(await call('approval_get', { approvalId: hold.approvalId }));
    expect(got).toMatchObject({ used: true });
    expect(got).not.toHaveProperty('signatureToken');
    const listed = structured(await call('approval_list', { status: 'approved', limit: 5 }));
    expect(listed.approvals.find((a: { approvalId: string }) => a.approvalId === hold.approvalId)).not.toHaveProperty('signatureToken');
    expect((await s.client.ok('approval.get', { approvalId: hold.approvalId }, { key: agentKey })).signatureToken).toMatch(/^apr_/);
  });

  it('after a rejection the agent is told to stop and relay it verbatim, by approval_wait and by a retry', async () => {
    const run = await nextPayRun();
    const hold = structured(await call('books_payrollSign', { runId: run.id }));
    await s.client.ok(
      'approval.resolve',
      { approvalId: hold.approvalId, decision: 'reject', note: 'Timesheets for week 2 are missing.' },
      { key: approverKey },
    );
    const waited = structured(await call('approval_wait', { approvalId: hold.approvalId, timeoutMs: 0 }));
    const stop = `Stop: ${waited.decidedBy} rejected "${hold.approval.subject.summary}" with the note: "Timesheets for week 2 are missing.". The act will not run on approval ${hold.approvalId}. Tell your user exactly that, and do not retry it or work around it.`;
    expect(waited.next).toBe(stop);
    const retried = toolError(await call('books_payrollSign', { runId: run.id, approvalId: hold.approvalId }));
    expect(retried).toEqual({ code: 'GOVERNANCE_NOT_READY', message: `Not executed. ${stop}` });
  });

  it('a replayed hold shows the approval as it stands now: after a rejection it says Replayed and Stop, never to get a new hold', async () => {
    const run = await nextPayRun();
    const hold = await call('books_payrollSign', { runId: run.id });
    expect((hold.content as unknown[]).length).toBe(1);
    const held = structured(hold);
    await s.client.ok('approval.resolve', { approvalId: held.approvalId, decision: 'reject', note: 'Not this fortnight.' }, { key: approverKey });
    const waited = structured(await call('approval_wait', { approvalId: held.approvalId, timeoutMs: 0 }));
    // The same call again replays the stored hold: said first, and its approval read as it is now.
    const replay = await call('books_payrollSign', { runId: run.id });
    const [note] = replay.content as { text: string }[];
    expect(note.text).toMatch(
      /^Replayed: a call with idempotencyKey mcp-[0-9a-f]+ already answered with this hold; nothing ran again\. Its approval apr_\w+ is rejected now: stop, the act will not run\./,
    );
    const again = structured(replay);
    expect(again).toMatchObject({ status: 'approval_required', approvalId: held.approvalId, approvalStatus: 'rejected' });
    expect(again.message).toMatch(/^Not executed: a human rejected Pay run .*; it will not run\./);
    expect(again.message).not.toMatch(/needs a human's approval/);
    expect(again.next).toBe(`Not executed. ${waited.next}`);
    expect(again.next).not.toMatch(/new hold|try again|To ask again/i);
    expect(replay._meta).toMatchObject({ 'wops/idempotentReplay': true });
  });

  it('approval_wait refuses to wait past 50 s, below the 60 s request timeout of common clients', async () => {
    const run = await nextPayRun();
    const hold = structured(await call('books_payrollSign', { runId: run.id }));
    expect(toolError(await call('approval_wait', { approvalId: hold.approvalId, timeoutMs: 60_000 }))).toEqual({
      code: 'BAD_REQUEST',
      message: 'timeoutMs: must be at most 50000',
    });
    const started = Date.now();
    expect(structured(await call('approval_wait', { approvalId: hold.approvalId, timeoutMs: 300 }))).toMatchObject({ status: 'pending', timedOut: true });
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
