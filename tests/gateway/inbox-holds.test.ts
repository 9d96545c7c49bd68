import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import { DEPLOYED } from '../../domain/deployed.js';
import { describeApproval } from '../../gateway/inbox/describe.js';
import { signaturePayloadHash } from '../../domain/approval/signature.js';
import type { Runtime } from '../../domain/deployed.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import { one } from '../../db/types.js';
import { TestClient, freshOrg, testRuntime } from '../helpers/harness.js';
import { eventsAfter, head } from '../helpers/calls.js';
import { openEventStream } from '../helpers/sse.js';

/*
 * Every family's holds in the approval inbox (issue 15): the board's release hold (board.deleteWorkstream) in
 * plain words with its exact params and hash, decided through the inbox with an amendment (the act runs in the
 * decision; the page gets what ran and its hash), deciders shown and enforced, and the board's retry hold
 * (board.removeTaskAttachment) described too.
 */

const ORIGIN = 'http://localhost:8080';
let runtime: Runtime;
let app: FastifyInstance;
let admin: TestClient;
let agentKey: string;
let agentId: string;
let approver: { apiKey: string; principal: { id: string } };
let owner: { apiKey: string; principal: { id: string } };

beforeAll(async () => {
  runtime = await testRuntime();
  app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0, inbox: { heartbeatMs: 100 } });
  const org = await freshOrg(runtime, 'holds');
  admin = new TestClient(app, org.adminKey);
  const agent = await admin.mint({ tier: 'agent' }, 'board agent');
  agentKey = agent.apiKey;
  agentId = agent.principal.id;
  approver = await admin.mint({ tier: 'approver' }, 'Dana Approver');
  owner = await admin.mint({ tier: 'approver' }, 'Olive Owner');
  await admin.ok('governance.set_decision_rights', { rights: [{ area: 'board', decidedBy: 'humans' }] });
});
afterAll(async () => {
  await app.close();
  await runtime.close();
});

interface Signed {
  cookie: string;
  csrf: string;
}

async function signIn(apiKey: string): Promise<Signed> {
  const res = await app.inject({
    method: 'POST',
    url: '/approvals/api/session',
    headers: { 'content-type': 'application/json', origin: ORIGIN },
    payload: { apiKey },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { cookie: String(res.headers['set-cookie']).split(';')[0], csrf: res.json().result.csrfToken };
}
const inboxGet = (url: string, s: Signed) => app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
const decide = (approvalId: string, s: Signed, payload: unknown) =>
  app.inject({
    method: 'POST',
    url: `/approvals/api/approvals/${approvalId}/decision`,
    headers: { cookie: s.cookie, origin: ORIGIN, 'x-csrf-token': s.csrf, 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });
const workstreamExists = async (id: string) => (await runtime.db.query('SELECT 1 FROM board_workstreams WHERE workstream_id = $1', [id])).length > 0;

describe('board holds in the inbox', () => {
  it('a release hold: listed in plain words, the exact params behind its hash, approved with an amendment, and what ran', async () => {
    const ws = await admin.ok('board.createWorkstream', { name: 'Old close' });
    const asked = await admin.ok('board.createWorkstream', { name: 'Asked' });
    const chosen = await admin.ok('board.createWorkstream', { name: 'Chosen' });
    const task = await admin.ok('board.createTask', { title: 'carry over', workstreamId: ws.id });
    const held = await admin.ok('board.deleteWorkstream', { workstreamId: ws.id, moveTasksTo: asked.id }, { key: agentKey });
    const approvalId = held.approval.approvalId;
    const human = await signIn(approver.apiKey);

    const list = (await inboxGet('/approvals/api/approvals?view=pending', human)).json().result.approvals;
    const item = list.find((a: any) => a.approvalId === approvalId);
    expect(item).toMatchObject({
      completion: 'release',
      amendable: ['moveTasksTo'],
      deciders: null,
      deciderNames: null,
      notDecider: false,
      mine: false,
      requestedBy: agentId,
      subject: { kind: 'board.signature', summary: 'Delete workstream "Old close" and its 0 comments; move its 1 item to "Asked"' },
      plain: {
        title: 'Delete a workstream',
        facts: [
          { label: 'Workstream', value: 'Old close' },
          { label: 'Comments erased', value: '0' },
          { label: 'Items', value: '1 item' },
          { label: 'Items move to', value: 'Asked' },
          { label: 'Workstream id', value: ws.id },
        ],
      },
    });

    const detail = (await inboxGet(`/approvals/api/approvals/${approvalId}`, human)).json().result;
    const signed = { actionClass: 'board.delete_workstream', subjectId: ws.id, params: { workstreamId: ws.id, moveTasksTo: asked.id } };
    expect(detail).toMatchObject({
      signed,
      canonical: canonicalJson(signed),
      hashMatches: true,
      releasedSigned: null,
      heldAct: { method: 'board.deleteWorkstream' },
    });
    expect(sha256Hex(detail.canonical)).toBe(detail.payloadHash);

    const before = await head(admin);
    const res = await decide(approvalId, human, { decision: 'approve', note: 'move them to Chosen', amendments: { moveTasksTo: chosen.id } });
    expect(res.statusCode, res.body).toBe(200);
    const decided = res.json().result;
    const final = { workstreamId: ws.id, moveTasksTo: chosen.id };
    expect(decided).toMatchObject({
      status: 'approved',
      decidedBy: approver.principal.id,
      used: true,
      released: { params: final, payloadHash: signaturePayloadHash('board.delete_workstream', ws.id, final), amended: ['moveTasksTo'] },
      releasedSigned: { actionClass: 'board.delete_workstream', subjectId: ws.id, params: final },
      releasedHashMatches: true,
      // What the human was shown stays as it was.
      signed,
      hashMatches: true,
    });
    expect(decided.signatureToken).toBeUndefined();
    expect(await workstreamExists(ws.id)).toBe(false);
    expect(one(await runtime.db.query<{ workstream_id: string }>('SELECT workstream_id FROM board_tasks WHERE task_id = $1', [task.id])).workstream_id).toBe(
      chosen.id,
    );
    expect((await eventsAfter(admin, before)).map((e) => [e.kind, e.actor])).toEqual([
      ['workstream.deleted', agentId],
      ['approval.request.approve', approver.principal.id],
    ]);
    // Listed as decided, with what ran.
    const decidedList = (await inboxGet('/approvals/api/approvals?view=decided', human)).json().result.approvals;
    expect(decidedList.find((a: any) => a.approvalId === approvalId)).toMatchObject({ status: 'approved', released: { amended: ['moveTasksTo'] } });
  });

  it('an amendment the act refuses, and a release that cannot run, come back as the API’s errors; nothing is decided', async () => {
    const ws = await admin.ok('board.createWorkstream', { name: 'Short-lived' });
    const held = await admin.ok('board.deleteWorkstream', { workstreamId: ws.id }, { key: agentKey });
    const human = await signIn(approver.apiKey);
    const bad = await decide(held.approval.approvalId, human, { decision: 'approve', amendments: { moveTasksTo: 'not-an-id' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/^amendments: moveTasksTo/);
    await admin.ok('board.deleteWorkstream', { workstreamId: ws.id });
    const gone = await decide(held.approval.approvalId, human, { decision: 'approve' });
    expect(gone.statusCode).toBe(409);
    expect(gone.json().error.message).toMatch(/releasing board.deleteWorkstream failed: NOT_FOUND/);
    expect((await inboxGet(`/approvals/api/approvals/${held.approval.approvalId}`, human)).json().result.status).toBe('pending');
    expect((await decide(held.approval.approvalId, human, { decision: 'reject' })).json().result.status).toBe('rejected');
  });

  it('deciders: named in plain words; another human is told who decides and refused; the owner decides', async () => {
    const ws = await admin.ok('board.createWorkstream', { name: 'Owned' });
    await admin.ok('board.assign', { workstreamId: ws.id, owner: owner.principal.id });
    const held = await admin.ok('board.deleteWorkstream', { workstreamId: ws.id }, { key: agentKey });
    const approvalId = held.approval.approvalId;
    const other = await signIn(approver.apiKey);
    const seen = (await inboxGet(`/approvals/api/approvals/${approvalId}`, other)).json().result;
    expect(seen).toMatchObject({ deciders: [owner.principal.id], deciderNames: [`Olive Owner (${owner.principal.id})`], notDecider: true });
    const refused = await decide(approvalId, other, { decision: 'approve' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toContain(`may be decided only by Olive Owner (${owner.principal.id})`);
    expect(await workstreamExists(ws.id)).toBe(true);
    const theOwner = await signIn(owner.apiKey);
    expect((await inboxGet(`/approvals/api/approvals/${approvalId}`, theOwner)).json().result.notDecider).toBe(false);
    expect((await decide(approvalId, theOwner, { decision: 'approve' })).json().result.status).toBe('approved');
    expect(await workstreamExists(ws.id)).toBe(false);
  });

  it('a retry hold of the board: titled and described, retry completion, no amendable fields', async () => {
    const task = await admin.ok('board.createTask', { title: 'Audit' });
    const att = await admin.ok('board.addTaskAttachment', { taskId: task.id, name: 'ledger.xlsx', url: 'https://files.example/ledger.xlsx' });
    const held = await admin.ok('board.removeTaskAttachment', { attachmentId: att.id }, { key: agentKey });
    const { actionClass, payloadHash, subject } = held.approval;
    const filed = await admin.ok('approval.request', { actionClass, payloadHash, subject }, { key: agentKey });
    const human = await signIn(approver.apiKey);
    const detail = (await inboxGet(`/approvals/api/approvals/${filed.approvalId}`, human)).json().result;
    expect(detail).toMatchObject({
      completion: 'retry',
      amendable: null,
      hashMatches: true,
      plain: {
        title: 'Remove an attachment',
        facts: [
          { label: 'Attachment', value: 'ledger.xlsx' },
          { label: 'From the item', value: 'Audit' },
          { label: 'Attachment id', value: att.id },
        ],
      },
    });
    // Amendments are for release approvals only.
    const res = await decide(filed.approvalId, human, { decision: 'approve', amendments: { attachmentId: att.id } });
    expect(res.statusCode).toBe(400);
  });
});

describe('the live stream', () => {
  it('announces a release approval the server filed with its hold, and its decision', async () => {
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const human = await signIn(approver.apiKey);
    const stream = await openEventStream(`${base}/approvals/api/stream`, human.cookie);
    await stream.next('ready');
    const ws = await admin.ok('board.createWorkstream', { name: 'Live' });
    const held = await admin.ok('board.deleteWorkstream', { workstreamId: ws.id }, { key: agentKey });
    const approvalId = held.approval.approvalId;
    expect(await stream.next('approval', (d) => d.approvalId === approvalId)).toEqual({ approvalId, change: 'requested' });
    await decide(approvalId, human, { decision: 'approve' });
    expect(await stream.next('approval', (d) => d.approvalId === approvalId && d.change !== 'requested')).toEqual({ approvalId, change: 'approved' });
    stream.close();
  });
});

describe('the generic describer', () => {
  it('describes any family’s held act from its class and exact params, plus the amounts its summary names', () => {
    const p = describeApproval(
      {
        actionClass: 'crm.share_deal',
        subject: { summary: 'Share the Acme deal ($12,000.00) with legal@acme.example' },
        heldAct: { method: 'crm.shareDeal', params: { dealId: 'deal_1', withEmail: 'legal@acme.example', expiresInDays: 7, notify: true, scopes: ['read'] } },
      },
      DEPLOYED.holdActs,
    );
    expect(p).toEqual({
      title: 'Share deal',
      facts: [
        { label: 'Amount', value: '$12,000.00' },
        { label: 'Deal id', value: 'deal_1' },
        { label: 'With email', value: 'legal@acme.example' },
        { label: 'Expires in days', value: '7' },
        { label: 'Notify', value: 'true' },
        { label: 'Scopes', value: '["read"]' },
      ],
    });
  });
});
