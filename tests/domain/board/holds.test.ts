import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HoldResult } from '../../../protocol/frames.js';
import { signaturePayloadHash } from '../../../domain/approval/signature.js';
import { testServer, type TestServer } from '../../helpers/harness.js';
import { declareGovernance } from './setup.js';
import { eventsAfter, expectOk, head } from '../../helpers/calls.js';
import { expectError } from '../../helpers/frames.js';
import { newTask, newWorkstream } from '../../helpers/tasks.js';

/*
 * The board as the first family beyond the books to hold (issue 15): an agent removing an attachment holds in
 * retry mode (board.remove_task_attachment), an agent deleting a workstream holds in release mode
 * (board.delete_workstream: the server files the approval, a human's approve deletes it in the decision, with
 * moveTasksTo amendable; a human owner is the one decider). Humans run both directly (attachments.test.ts,
 * workstreams.test.ts).
 */

let s: TestServer;
let agent: { apiKey: string; principal: { id: string } };
let approver: { apiKey: string; principal: { id: string } };
let owner: { apiKey: string; principal: { id: string } };

beforeAll(async () => {
  s = await testServer();
  agent = await s.client.mint({ tier: 'agent' }, 'board agent');
  approver = await s.client.mint({ tier: 'approver' }, 'Dana Approver');
  owner = await s.client.mint({ tier: 'approver' }, 'Olive Owner');
  await declareGovernance(s.client);
});
afterAll(() => s.close());

const rpc = (method: string, params: unknown, key?: string) => s.client.rpc(method, params, { key });
const attachmentExists = async (id: string) =>
  (await s.runtime.db.query('SELECT 1 FROM board_attachments WHERE org_id = $1 AND attachment_id = $2', [s.org.orgId, id])).length > 0;
const workstream = async (id: string) =>
  (await s.runtime.db.query<{ name: string }>('SELECT name FROM board_workstreams WHERE org_id = $1 AND workstream_id = $2', [s.org.orgId, id]))[0];
const tasksOf = async (wsId: string) =>
  (
    await s.runtime.db.query<{ task_id: string }>('SELECT task_id FROM board_tasks WHERE org_id = $1 AND workstream_id = $2 ORDER BY task_id', [
      s.org.orgId,
      wsId,
    ])
  ).map((r) => r.task_id);

/** An attachment on a fresh task, added by the admin. */
async function attachment() {
  const task = await newTask(s.client, { title: 'Reconcile March' });
  return s.client.ok('board.addTaskAttachment', { taskId: task.id, name: 'march.pdf', url: 'https://files.example/march.pdf' });
}

/** The hold frame of an agent's call: ok, valid against the contract's HoldResult, one event of `kind`. */
async function held(method: string, params: Record<string, unknown>) {
  const before = await head(s.client);
  const res = await rpc(method, params, agent.apiKey);
  expect(res.status, res.raw).toBe(200);
  const hold = res.body.result;
  expect(HoldResult.safeParse(hold).error?.issues ?? []).toEqual([]);
  const events = await eventsAfter(s.client, before);
  expect(events.map((e) => [e.family, e.kind, e.actor])).toEqual([['board', 'board.signature.hold', agent.principal.id]]);
  return { hold, event: events[0] };
}

describe('board.removeTaskAttachment from an agent: retry mode', () => {
  it('holds with the board’s names and changes nothing; approval.request binds board.signature; the retry with the proof removes it once', async () => {
    const att = await attachment();
    const { hold, event } = await held('board.removeTaskAttachment', { attachmentId: att.id });
    expect(hold.approval).toEqual({
      actionClass: 'board.remove_task_attachment',
      payloadHash: signaturePayloadHash('board.remove_task_attachment', att.id, { attachmentId: att.id }),
      subject: { kind: 'board.signature', subjectId: att.id, summary: 'Remove the attachment "march.pdf" from the item "Reconcile March"' },
      expiresInMs: s.runtime.deps.config.holdTtlMs,
      completion: 'retry',
    });
    expect(hold.message).toMatch(/^Held, not executed: .*File approval\.request/);
    expect(event).toMatchObject({
      entity_id: att.id,
      payload: { method: 'board.removeTaskAttachment', actionClass: 'board.remove_task_attachment', payloadHash: hold.approval.payloadHash },
    });
    expect(await attachmentExists(att.id)).toBe(true);

    // Near misses of the kind are refused; the exact one binds to the hold the server recorded.
    for (const kind of ['books.signature', 'Board.signature', 'board.signature ', 'board.signatures']) {
      const res = await rpc(
        'approval.request',
        { ...hold.approval, subject: { ...hold.approval.subject, kind }, completion: undefined, expiresInMs: undefined },
        agent.apiKey,
      );
      expect(res.body.ok, kind).toBe(false);
    }
    const { actionClass, payloadHash, subject } = hold.approval;
    const filed = expectOk('approval.request', await rpc('approval.request', { actionClass, payloadHash, subject }, agent.apiKey));
    expect(filed).toMatchObject({
      status: 'pending',
      completion: 'retry',
      deciders: null,
      amendable: null,
      heldAct: { method: 'board.removeTaskAttachment', params: { attachmentId: att.id } },
    });

    const early = await rpc('board.removeTaskAttachment', { attachmentId: att.id, approvalId: filed.approvalId }, agent.apiKey);
    expectError(early, 'GOVERNANCE_NOT_READY', /pending/);
    expect(await attachmentExists(att.id)).toBe(true);

    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: approver.apiKey });
    const before = await head(s.client);
    const done = expectOk(
      'board.removeTaskAttachment',
      await rpc('board.removeTaskAttachment', { attachmentId: att.id, approvalId: filed.approvalId }, agent.apiKey),
    );
    expect(done).toEqual({ attachmentId: att.id, taskId: att.taskId, removed: true });
    expect(await attachmentExists(att.id)).toBe(false);
    const events = await eventsAfter(s.client, before);
    expect(events).toMatchObject([
      { kind: 'item.attachment.removed', actor: agent.principal.id, payload: { attachmentId: att.id, approvalId: filed.approvalId } },
    ]);
    expectError(await rpc('board.removeTaskAttachment', { attachmentId: att.id, approvalId: filed.approvalId }, agent.apiKey), 'NOT_FOUND');
  });

  it('a proof for another attachment is CONFLICT and removes nothing; a human removes without any hold', async () => {
    const [a, b] = [await attachment(), await attachment()];
    const hold = (await held('board.removeTaskAttachment', { attachmentId: a.id })).hold;
    const { actionClass, payloadHash, subject } = hold.approval;
    const filed = await s.client.ok('approval.request', { actionClass, payloadHash, subject }, { key: agent.apiKey });
    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: approver.apiKey });
    expectError(await rpc('board.removeTaskAttachment', { attachmentId: b.id, approvalId: filed.approvalId }, agent.apiKey), 'CONFLICT');
    expect(await attachmentExists(b.id)).toBe(true);
    const before = await head(s.client);
    expectOk('board.removeTaskAttachment', await rpc('board.removeTaskAttachment', { attachmentId: b.id }));
    expect((await eventsAfter(s.client, before)).map((e) => e.kind)).toEqual(['item.attachment.removed']);
  });
});

describe('board.deleteWorkstream from an agent: release mode', () => {
  async function streamWithItems() {
    const ws = await newWorkstream(s.client, { name: 'Old close' });
    const t1 = await newTask(s.client, { title: 'one', workstreamId: ws.id });
    const t2 = await newTask(s.client, { title: 'two', workstreamId: ws.id });
    await s.client.ok('board.comment', { workstreamId: ws.id, body: 'retire this' });
    return { ws, tasks: [t1.id, t2.id].sort() };
  }

  it('holds, the server files the approval; a human approves with moveTasksTo amended and the decision deletes it', async () => {
    const { ws, tasks } = await streamWithItems();
    const asked = await newWorkstream(s.client, { name: 'Asked target' });
    const chosen = await newWorkstream(s.client, { name: 'Chosen target' });
    const params = { workstreamId: ws.id, moveTasksTo: asked.id };
    const { hold, event } = await held('board.deleteWorkstream', params);
    expect(hold.approval).toMatchObject({
      actionClass: 'board.delete_workstream',
      payloadHash: signaturePayloadHash('board.delete_workstream', ws.id, params),
      subject: { kind: 'board.signature', subjectId: ws.id, summary: 'Delete workstream "Old close" and its 1 comment; move its 2 items to "Asked target"' },
      completion: 'release',
      approvalId: expect.stringMatching(/^apr_/),
      amendable: ['moveTasksTo'],
    });
    expect(hold.approval.deciders).toBeUndefined();
    expect(hold.message).toMatch(/The server filed approval apr_.*Do not retry the call: wait/);
    expect(event.payload).toMatchObject({ completion: 'release', approvalId: hold.approval.approvalId });
    // The hold changed nothing.
    expect(await workstream(ws.id)).toEqual({ name: 'Old close' });
    expect(await tasksOf(ws.id)).toEqual(tasks);

    const approvalId = hold.approval.approvalId;
    const pending = await s.client.ok('approval.get', { approvalId }, { key: agent.apiKey });
    expect(pending).toMatchObject({
      status: 'pending',
      requestedBy: agent.principal.id,
      completion: 'release',
      amendable: ['moveTasksTo'],
      released: null,
      heldAct: { method: 'board.deleteWorkstream', params },
      subject: { kind: 'board.signature', subjectId: ws.id },
    });
    // approval.request for the hold gives back the server's approval, not a second one.
    const { actionClass, payloadHash, subject } = hold.approval;
    expect((await s.client.ok('approval.request', { actionClass, payloadHash, subject }, { key: agent.apiKey })).approvalId).toBe(approvalId);
    // The caller must not retry: the schema takes no proof, and the approval is no proof anyway.
    expectError(await rpc('board.deleteWorkstream', { ...params, approvalId }, agent.apiKey), 'BAD_REQUEST', /approvalId/);

    // Amendments are checked before anything runs: only amendable fields, valid for the act.
    expectError(
      await rpc('approval.resolve', { approvalId, decision: 'approve', amendments: { workstreamId: chosen.id } }, approver.apiKey),
      'BAD_REQUEST',
      /^amendments\.workstreamId: not amendable/,
    );
    expectError(
      await rpc('approval.resolve', { approvalId, decision: 'approve', amendments: { moveTasksTo: 'nowhere' } }, approver.apiKey),
      'BAD_REQUEST',
      /^amendments: moveTasksTo/,
    );
    expectError(
      await rpc('approval.resolve', { approvalId, decision: 'reject', amendments: { moveTasksTo: chosen.id } }, approver.apiKey),
      'BAD_REQUEST',
      /only an approve/,
    );
    expect((await s.client.ok('approval.get', { approvalId })).status).toBe('pending');

    const before = await head(s.client);
    const decided = expectOk(
      'approval.resolve',
      await rpc('approval.resolve', { approvalId, decision: 'approve', note: 'into the chosen one', amendments: { moveTasksTo: chosen.id } }, approver.apiKey),
    );
    const final = { workstreamId: ws.id, moveTasksTo: chosen.id };
    expect(decided).toMatchObject({
      status: 'approved',
      decidedBy: approver.principal.id,
      used: true,
      released: { params: final, payloadHash: signaturePayloadHash('board.delete_workstream', ws.id, final), amended: ['moveTasksTo'] },
    });
    expect(decided.signatureToken).toBeUndefined();
    // The act ran in the decision's transaction: the workstream is gone, its items are where the human said.
    expect(await workstream(ws.id)).toBeUndefined();
    expect(await tasksOf(chosen.id)).toEqual(tasks);
    expect(await tasksOf(asked.id)).toEqual([]);
    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => [e.kind, e.actor])).toEqual([
      ['workstream.deleted', agent.principal.id],
      ['approval.request.approve', approver.principal.id],
    ]);
    expect(events[0].payload).toMatchObject({ movedTasks: 2, moveTasksTo: chosen.id, approvalId });
    expect(events[1].payload).toMatchObject({
      approvalId,
      decision: 'approve',
      released: { method: 'board.deleteWorkstream', seq: events[0].seq, payloadHash: decided.released.payloadHash, amended: ['moveTasksTo'] },
    });
    // Decided once.
    expectError(await rpc('approval.resolve', { approvalId, decision: 'approve' }, approver.apiKey), 'CONFLICT', /already approved/);
  });

  it('a rejection releases nothing; a release whose act can no longer run is refused and records nothing', async () => {
    const { ws, tasks } = await streamWithItems();
    const target = await newWorkstream(s.client);
    const rejected = (await held('board.deleteWorkstream', { workstreamId: ws.id, moveTasksTo: target.id })).hold.approval.approvalId;
    await s.client.ok('approval.resolve', { approvalId: rejected, decision: 'reject', note: 'keep it' }, { key: approver.apiKey });
    expect(await workstream(ws.id)).toBeDefined();
    expect(await tasksOf(ws.id)).toEqual(tasks);

    // The state moves on before the decision: a human deletes the target.
    const approvalId = (await held('board.deleteWorkstream', { workstreamId: ws.id, moveTasksTo: target.id })).hold.approval.approvalId;
    expect(approvalId).not.toBe(rejected);
    await s.client.ok('board.deleteWorkstream', { workstreamId: target.id });
    const before = await head(s.client);
    expectError(
      await rpc('approval.resolve', { approvalId, decision: 'approve' }, approver.apiKey),
      'CONFLICT',
      new RegExp(`^approval ${approvalId} was not decided: releasing board.deleteWorkstream failed: NOT_FOUND: .*Nothing changed; amend it or reject it$`),
    );
    expect(await head(s.client)).toBe(before);
    expect(await s.client.ok('approval.get', { approvalId })).toMatchObject({ status: 'pending', used: false, released: null });
    expect(await tasksOf(ws.id)).toEqual(tasks);
    // The human amends instead: the act runs.
    const other = await newWorkstream(s.client);
    await s.client.ok('approval.resolve', { approvalId, decision: 'approve', amendments: { moveTasksTo: other.id } }, { key: approver.apiKey });
    expect(await workstream(ws.id)).toBeUndefined();
    expect(await tasksOf(other.id)).toEqual(tasks);
  });

  it('a human owner is the one decider: another human, an agent and the other approvers are refused', async () => {
    const ws = await newWorkstream(s.client, { name: 'Owned' });
    await s.client.ok('board.assign', { workstreamId: ws.id, owner: owner.principal.id });
    const { hold } = await held('board.deleteWorkstream', { workstreamId: ws.id });
    expect(hold.approval.deciders).toEqual([owner.principal.id]);
    expect(hold.approval.subject.summary).toBe('Delete workstream "Owned" and its 0 comments; leave its 0 items (all done) without a workstream');
    const approvalId = hold.approval.approvalId;
    expectError(
      await rpc('approval.resolve', { approvalId, decision: 'approve' }, approver.apiKey),
      'CONFLICT',
      `approval ${approvalId} may be decided only by Olive Owner (${owner.principal.id}); ${approver.principal.id} is not among them, so nothing changed: one of them decides it`,
    );
    expectError(await rpc('approval.resolve', { approvalId, decision: 'reject' }), 'CONFLICT', /may be decided only by Olive Owner/);
    expectError(await rpc('approval.resolve', { approvalId, decision: 'approve' }, agent.apiKey), 'FORBIDDEN_SCOPE');
    expect(await workstream(ws.id)).toBeDefined();
    expect((await s.client.ok('approval.get', { approvalId })).deciders).toEqual([owner.principal.id]);
    await s.client.ok('approval.resolve', { approvalId, decision: 'approve' }, { key: owner.apiKey });
    expect(await workstream(ws.id)).toBeUndefined();
  });

  it('an agent-owned workstream names no decider; an open item without moveTasksTo is refused before any hold', async () => {
    const ws = await newWorkstream(s.client);
    await s.client.ok('board.assign', { workstreamId: ws.id, owner: agent.principal.id });
    await newTask(s.client, { workstreamId: ws.id });
    const before = await head(s.client);
    expectError(await rpc('board.deleteWorkstream', { workstreamId: ws.id }, agent.apiKey), 'CONFLICT', /still has 1 open item/);
    expect(await head(s.client)).toBe(before);
    const target = await newWorkstream(s.client);
    const { hold } = await held('board.deleteWorkstream', { workstreamId: ws.id, moveTasksTo: target.id });
    expect(hold.approval.deciders).toBeUndefined();
  });
});
