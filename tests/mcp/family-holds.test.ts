import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signaturePayloadHash } from '../../domain/approval/signature.js';
import { META_TOOLS } from '../../mcp/meta-tools.js';
import { allEvents, testServer, type TestServer } from '../helpers/harness.js';
import { connectInMemory, structured, toolError, type Connected } from './fixtures.js';

/*
 * Holds beyond the books over MCP, with the board's real acts: an agent's board_removeTaskAttachment holds in
 * retry mode (the server files the approval for the agent, a human approves, the agent retries with the proof);
 * its board_deleteWorkstream holds in release mode (the server filed the approval with the hold; the tool result
 * says to wait, never to retry; the human's approve deletes it; approval_wait reports what ran).
 */

let s: TestServer;
let agentKey: string;
let approver: { apiKey: string; principal: { id: string } };

beforeAll(async () => {
  s = await testServer();
  agentKey = (await s.client.mint({ tier: 'agent' }, 'board agent')).apiKey;
  approver = await s.client.mint({ tier: 'approver' }, 'Dana Approver');
});
afterAll(() => s.close());

const call = (c: Connected, name: string, args: Record<string, unknown>) => c.client.callTool({ name, arguments: args });
const exists = async (table: string, column: string, id: string) =>
  (await s.runtime.db.query(`SELECT 1 FROM ${table} WHERE org_id = $1 AND ${column} = $2`, [s.org.orgId, id])).length > 0;

describe('board holds over MCP', () => {
  it('retry mode: hold -> approval filed for the agent -> human approves -> approval_wait -> retry with approvalId removes it', async () => {
    const agent = await connectInMemory(s.runtime, agentKey, { toolsets: 'board' });
    try {
      const task = await s.client.ok('board.createTask', { title: 'Quarterly pack' });
      const att = await s.client.ok('board.addTaskAttachment', { taskId: task.id, name: 'pack.pdf', url: 'https://files.example/pack.pdf' });
      const before = (await allEvents(s.client)).length;
      const hold = structured(await call(agent, 'board_removeTaskAttachment', { attachmentId: att.id }));
      expect(hold).toMatchObject({
        status: 'approval_required',
        approval: {
          actionClass: 'board.remove_task_attachment',
          payloadHash: signaturePayloadHash('board.remove_task_attachment', att.id, { attachmentId: att.id }),
          subject: { kind: 'board.signature', subjectId: att.id, summary: 'Remove the attachment "pack.pdf" from the item "Quarterly pack"' },
          completion: 'retry',
        },
        approvalId: expect.stringMatching(/^apr_/),
        approvalStatus: 'pending',
      });
      expect(hold.next).toMatch(/approval_wait/);
      expect(hold.next).toMatch(/call board_removeTaskAttachment again with the same arguments plus approvalId/);
      expect((await allEvents(s.client)).slice(before).map((e) => e.kind)).toEqual(['board.signature.hold', 'approval.request.create']);
      expect(await exists('board_attachments', 'attachment_id', att.id)).toBe(true);

      await s.client.ok('approval.resolve', { approvalId: hold.approvalId, decision: 'approve' }, { key: approver.apiKey });
      expect(structured(await call(agent, 'approval_wait', { approvalId: hold.approvalId }))).toMatchObject({ status: 'approved', completion: 'retry' });
      const done = structured(await call(agent, 'board_removeTaskAttachment', { attachmentId: att.id, approvalId: hold.approvalId }));
      expect(done).toMatchObject({ attachmentId: att.id, removed: true });
      expect(await exists('board_attachments', 'attachment_id', att.id)).toBe(false);
      expect((await allEvents(s.client)).at(-1)).toMatchObject({ kind: 'item.attachment.removed', payload: { approvalId: hold.approvalId } });
    } finally {
      await agent.close();
    }
  });

  it('release mode: the tool result names the filed approval and says to wait, not retry; the human’s approve deletes it', async () => {
    const agent = await connectInMemory(s.runtime, agentKey, { toolsets: 'board' });
    try {
      const ws = await s.client.ok('board.createWorkstream', { name: 'Retired' });
      const before = (await allEvents(s.client)).length;
      const hold = structured(await call(agent, 'board_deleteWorkstream', { workstreamId: ws.id }));
      expect(hold).toMatchObject({
        status: 'approval_required',
        approval: {
          actionClass: 'board.delete_workstream',
          completion: 'release',
          approvalId: hold.approvalId,
          amendable: ['moveTasksTo'],
          subject: { kind: 'board.signature' },
        },
        approvalStatus: 'pending',
        url: `${s.runtime.deps.config.publicUrl}/approvals/${hold.approvalId}`,
        elicitation: null,
      });
      expect(hold.next).toMatch(/^Not executed yet, and not to be retried: the server filed approval/);
      expect(hold.next).toContain(`Call approval_wait with approvalId "${hold.approvalId}"`);
      // The server filed it with the hold: nothing else was filed.
      expect((await allEvents(s.client)).slice(before).map((e) => e.kind)).toEqual(['board.signature.hold']);
      const pending = (await s.client.ok('approval.list', { status: 'pending' })).approvals.filter((a: any) => a.subject.subjectId === ws.id);
      expect(pending.map((a: any) => a.approvalId)).toEqual([hold.approvalId]);
      expect(await exists('board_workstreams', 'workstream_id', ws.id)).toBe(true);

      // Via invoke_write too; the same pending approval.
      const again = structured(await call(agent, META_TOOLS.write, { name: 'board.deleteWorkstream', params: { workstreamId: ws.id } }));
      expect(again.approvalId).toBe(hold.approvalId);

      const wait = call(agent, 'approval_wait', { approvalId: hold.approvalId, timeoutMs: 20000 });
      await new Promise((r) => setTimeout(r, 100));
      await s.client.ok('approval.resolve', { approvalId: hold.approvalId, decision: 'approve' }, { key: approver.apiKey });
      const decided = structured(await wait);
      expect(decided).toMatchObject({ status: 'approved', timedOut: false, used: true, released: { params: { workstreamId: ws.id }, amended: [] } });
      expect(await exists('board_workstreams', 'workstream_id', ws.id)).toBe(false);
      expect((await allEvents(s.client)).slice(-2).map((e) => e.kind)).toEqual(['workstream.deleted', 'approval.request.approve']);
      // The agent cannot decide; a retry after the release finds nothing to delete.
      expect(toolError(await call(agent, 'board_deleteWorkstream', { workstreamId: ws.id })).code).toBe('NOT_FOUND');
    } finally {
      await agent.close();
    }
  });

  it('release mode: an agent cannot decide its own hold, and a rejection is reported on the next hold of the same act', async () => {
    const agent = await connectInMemory(s.runtime, agentKey, { toolsets: 'board' });
    try {
      const ws = await s.client.ok('board.createWorkstream', { name: 'Keep me' });
      const hold = structured(await call(agent, 'board_deleteWorkstream', { workstreamId: ws.id }));
      // Not even reachable for this key (it lacks approval.decide); the approval stays pending.
      expect(['NOT_FOUND', 'FORBIDDEN_SCOPE']).toContain(
        toolError(await call(agent, META_TOOLS.write, { name: 'approval.resolve', params: { approvalId: hold.approvalId, decision: 'approve' } })).code,
      );
      expect((await s.client.ok('approval.get', { approvalId: hold.approvalId })).status).toBe('pending');
      await s.client.ok('approval.resolve', { approvalId: hold.approvalId, decision: 'reject', note: 'still in use' }, { key: approver.apiKey });
      expect(structured(await call(agent, 'approval_wait', { approvalId: hold.approvalId }))).toMatchObject({ status: 'rejected', note: 'still in use' });
      expect(await exists('board_workstreams', 'workstream_id', ws.id)).toBe(true);
      // Asking again is a new hold with a new approval.
      const next = structured(await call(agent, 'board_deleteWorkstream', { workstreamId: ws.id }));
      expect(next.approvalId).not.toBe(hold.approvalId);
      expect(next.approvalStatus).toBe('pending');
    } finally {
      await agent.close();
    }
  });
});
