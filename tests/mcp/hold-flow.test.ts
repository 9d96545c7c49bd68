import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { signaturePayloadHash } from '../../domain/approval/signature.js';
import { ELICITATION_ANSWER_MS } from '../../mcp/holds.js';
import { META_TOOLS } from '../../mcp/meta-tools.js';
import { META } from '../../mcp/results.js';
import { allEvents, type TestServer } from '../helpers/harness.js';
import { payRunState, connectInMemory, mcpTestServer, payRuns, structured, toolError, type Connected, type DraftRun } from './fixtures.js';

/*
 * The signature law over MCP, with the real books.payrollSign: the agent's call holds, the server files the
 * approval for it, a human approves over HTTP, the agent waits and retries with the proof, the pay run posts.
 * A client's elicitation "accept" releases nothing.
 */

let s: TestServer;
let agentKey: string;
let approver: { apiKey: string; principal: { id: string } };
let draftRun: () => Promise<DraftRun>;

beforeAll(async () => {
  s = await mcpTestServer();
  draftRun = payRuns(s);
  agentKey = (await s.client.mint({ tier: 'agent' }, 'payroll agent')).apiKey;
  approver = await s.client.mint({ tier: 'approver' }, 'finance lead');
});
afterAll(() => s.close());

const call = (c: Connected, name: string, args: Record<string, unknown>) => c.client.callTool({ name, arguments: args });

describe('hold frames over MCP', () => {
  it('hold -> approval filed -> human approves over HTTP -> approval_wait -> retry with approvalId executes once', async () => {
    const agent = await connectInMemory(s.runtime, agentKey, { toolsets: 'payroll' });
    try {
      const run = await draftRun();
      const untouched = await payRunState(s, run.id);
      const before = (await s.client.get('snapshot')).body.head.seq;
      const held = await call(agent, 'books_payrollSign', { runId: run.id });
      const hold = structured(held);
      // The hold, verbatim.
      expect(hold).toMatchObject({
        status: 'approval_required',
        approval: {
          actionClass: 'books.payroll_sign',
          payloadHash: signaturePayloadHash('books.payroll_sign', run.id, { runId: run.id }),
          subject: { kind: 'books.signature', subjectId: run.id, summary: expect.stringMatching(/^Pay run .*net \$/) },
        },
        subjectId: run.id,
      });
      expect(hold.approval.expiresInMs).toBeGreaterThan(0);
      expect(hold.message).toMatch(/^Held, not executed/);
      // Filed for the agent: approval id, its page in the inbox, and the next step.
      expect(hold.approvalId).toMatch(/^apr_/);
      expect(hold.approvalStatus).toBe('pending');
      expect(hold.url).toBe(`${s.runtime.deps.config.publicUrl}/approvals/${hold.approvalId}`);
      expect(hold.elicitation).toBeNull();
      expect(hold.next).toMatch(/approval_wait/);
      expect(hold.next).toContain(hold.approvalId);
      expect(await payRunState(s, run.id)).toBe(untouched);
      const events = await allEvents(s.client);
      expect(events.slice(before).map((e) => e.kind)).toEqual(['books.signature.hold', 'approval.request.create']);

      // The approver sees exactly the held call.
      const pending = await s.client.ok('approval.get', { approvalId: hold.approvalId }, { key: approver.apiKey });
      expect(pending).toMatchObject({ status: 'pending', heldAct: { method: 'books.payrollSign', params: { runId: run.id } } });

      // Retrying the held call unchanged replays the hold and files nothing new.
      const replay = structured(await call(agent, 'books_payrollSign', { runId: run.id }));
      expect(replay.approvalId).toBe(hold.approvalId);
      expect((await s.client.get('snapshot')).body.head.seq).toBe(events.length);

      // Waiting times out while no human has decided.
      const waiting = structured(await call(agent, 'approval_wait', { approvalId: hold.approvalId, timeoutMs: 0 }));
      expect(waiting).toMatchObject({ status: 'pending', timedOut: true });
      // The agent cannot decide it: a human's decision is no MCP tool.
      expect(
        toolError(await call(agent, META_TOOLS.write, { name: 'approval.resolve', params: { approvalId: hold.approvalId, decision: 'approve' } })),
      ).toMatchObject({
        code: 'FORBIDDEN_SCOPE',
        message: expect.stringMatching(/^missing scope approval\.decide for approval\.resolve: it records a human's decision/),
      });

      // A human approves over HTTP while the agent long-polls.
      const wait = call(agent, 'approval_wait', { approvalId: hold.approvalId, timeoutMs: 20000 });
      await new Promise((r) => setTimeout(r, 100));
      await s.client.ok('approval.resolve', { approvalId: hold.approvalId, decision: 'approve', note: 'matches timesheets' }, { key: approver.apiKey });
      const decided = structured(await wait);
      expect(decided).toMatchObject({ approvalId: hold.approvalId, status: 'approved', timedOut: false, decidedBy: approver.principal.id });

      const done = await call(agent, 'books_payrollSign', { runId: run.id, approvalId: hold.approvalId });
      expect(structured(done)).toMatchObject({ payRun: { id: run.id, status: 'POSTED', netCents: run.netCents }, approvalId: hold.approvalId, changed: true });
      expect(await payRunState(s, run.id)).toMatch(/^POSTED\/jnl_/);
      const after = await allEvents(s.client);
      expect(after.at(-1)).toMatchObject({ kind: 'books.payroll.sign', entity_id: run.id });
      expect(after.at(-1).row_hash.slice(0, 8)).toBe(structured(done).ledgerId);

      // Retrying the executed call replays; it never runs twice.
      const again = await call(agent, 'books_payrollSign', { runId: run.id, approvalId: hold.approvalId });
      expect(again._meta?.[META.replayed]).toBe(true);
      expect(structured(again).ledgerId).toBe(structured(done).ledgerId);
      expect((await allEvents(s.client)).filter((e) => e.kind === 'books.payroll.sign' && e.entity_id === run.id)).toHaveLength(1);
      // A new attempt with a used proof is refused (single use).
      expect(toolError(await call(agent, 'books_payrollSign', { runId: run.id, approvalId: hold.approvalId, idempotencyKey: 'fresh' }))).toMatchObject({
        code: 'GOVERNANCE_NOT_READY',
        message: expect.stringMatching(/already used/),
      });
    } finally {
      await agent.close();
    }
  });

  it('a client that never answers the URL elicitation gets the hold at once, and a retry does not ask or wait again', async () => {
    let asked = 0;
    const agent = await connectInMemory(s.runtime, agentKey, { toolsets: 'payroll' }, { elicitation: { url: {} } });
    // Like a stdio client whose user never looks: the elicitation is never answered.
    agent.client.setRequestHandler(ElicitRequestSchema, () => {
      asked++;
      return new Promise(() => {});
    });
    try {
      const run = await draftRun();
      const started = Date.now();
      const hold = structured(await call(agent, 'books_payrollSign', { runId: run.id }));
      const took = Date.now() - started;
      expect(hold).toMatchObject({ status: 'approval_required', approvalStatus: 'pending', elicitation: 'requested' });
      expect(hold.approvalId).toMatch(/^apr_/);
      // Well inside a client's 60 s request timeout: bounded by the short wait for an immediate answer.
      expect(took).toBeLessThan(ELICITATION_ANSWER_MS + 3_000);
      const retryStarted = Date.now();
      const again = structured(await call(agent, 'books_payrollSign', { runId: run.id }));
      // asked stays 1: the retry neither asks again nor waits for an answer (the bound is loose: shared machines).
      expect(Date.now() - retryStarted).toBeLessThan(ELICITATION_ANSWER_MS + 3_000);
      expect(again).toMatchObject({ approvalId: hold.approvalId, approvalStatus: 'pending', elicitation: 'requested' });
      expect(asked).toBe(1);
    } finally {
      await agent.close();
    }
  });

  it('URL elicitation sends the human to the approval page; the client’s accept releases nothing', async () => {
    const elicited: any[] = [];
    const completed: string[] = [];
    const agent = await connectInMemory(s.runtime, agentKey, { toolsets: 'payroll' }, { elicitation: { url: {} } });
    agent.client.setRequestHandler(ElicitRequestSchema, async (req) => {
      elicited.push(req.params);
      return { action: 'accept' };
    });
    agent.client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (n) => {
      completed.push(n.params.elicitationId);
    });
    try {
      const run = await draftRun();
      const hold = structured(await call(agent, 'books_payrollSign', { runId: run.id }));
      expect(elicited).toEqual([expect.objectContaining({ mode: 'url', url: hold.url, elicitationId: hold.approvalId })]);
      expect(hold.elicitation).toBe('accept');
      expect(hold.approvalStatus).toBe('pending');
      // "accept" is the client's word, not a human decision: the act still refuses.
      const early = toolError(await call(agent, 'books_payrollSign', { runId: run.id, approvalId: hold.approvalId }));
      expect(early.code).toBe('GOVERNANCE_NOT_READY');
      expect(early.message).toMatch(/pending/);
      expect(await payRunState(s, run.id)).toMatch(/^DRAFT\/null\//);
      expect((await s.client.ok('approval.get', { approvalId: hold.approvalId }, { key: approver.apiKey })).status).toBe('pending');

      await s.client.ok('approval.resolve', { approvalId: hold.approvalId, decision: 'approve' }, { key: approver.apiKey });
      expect(structured(await call(agent, 'approval_wait', { approvalId: hold.approvalId })).status).toBe('approved');
      await new Promise((r) => setTimeout(r, 50));
      expect(completed).toEqual([hold.approvalId]);
      // The refused attempt was not cached (it failed), so the same call now runs.
      const done = await call(agent, 'books_payrollSign', { runId: run.id, approvalId: hold.approvalId });
      expect(structured(done).payRun.status).toBe('POSTED');
    } finally {
      await agent.close();
    }
  });

  it('a rejected approval is reported and the act refuses', async () => {
    const agent = await connectInMemory(s.runtime, agentKey, { toolsets: 'payroll' });
    try {
      const run = await draftRun();
      const untouched = await payRunState(s, run.id);
      const hold = structured(await call(agent, 'books_payrollSign', { runId: run.id }));
      await s.client.ok('approval.resolve', { approvalId: hold.approvalId, decision: 'reject', note: 'wrong period' }, { key: approver.apiKey });
      const replay = structured(await call(agent, 'books_payrollSign', { runId: run.id }));
      expect(replay.approvalStatus).toBe('rejected');
      // A rejection is final: the replayed hold says stop, never to get a new hold.
      expect(replay.next).toMatch(/^Not executed\. Stop: .* rejected .* with the note: "wrong period"\..* do not retry it or work around it\.$/);
      expect(toolError(await call(agent, 'books_payrollSign', { runId: run.id, approvalId: hold.approvalId })).message).toMatch(/rejected/);
      expect(await payRunState(s, run.id)).toBe(untouched);
    } finally {
      await agent.close();
    }
  });

  it('a key that cannot file approvals still gets the hold verbatim and the inbox URL', async () => {
    const narrow = await s.client.mint({ scopes: ['org.read', 'books.write'] }, 'narrow agent');
    const agent = await connectInMemory(s.runtime, narrow.apiKey, { toolsets: 'payroll' });
    try {
      const run = await draftRun();
      const hold = structured(await call(agent, 'books_payrollSign', { runId: run.id }));
      expect(hold).toMatchObject({ status: 'approval_required', approvalId: null, approvalStatus: null, url: `${s.runtime.deps.config.publicUrl}/approvals` });
      expect(hold.next).toMatch(/lacks scope approval.request/);
      expect((await s.client.ok('approval.list', { status: 'pending' })).approvals.some((a: any) => a.subject.subjectId === run.id)).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it('holds work through invoke_write too, and name it in the next step', async () => {
    const agent = await connectInMemory(s.runtime, agentKey, { toolsets: 'board' });
    try {
      const run = await draftRun();
      const hold = structured(await call(agent, META_TOOLS.write, { name: 'books.payrollSign', params: { runId: run.id } }));
      expect(hold.status).toBe('approval_required');
      expect(hold.next).toContain(`${META_TOOLS.write} (name "books.payrollSign")`);
    } finally {
      await agent.close();
    }
  });
});
