import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, head, mutate, ok } from '../../helpers/calls.js';
import { connectInMemory, structured } from '../../mcp/fixtures.js';
import { deliver, mailOrg, type MailOrg } from './kit.js';

/*
 * Acceptance scenario 5 (docs/families/email.md, AI and filing), offline: an agent on the email desk summarises a
 * thread (citing message ids, the newest question kept; the second call cached), triages it, turns its requests into
 * board tasks in the triage column with one event, and files its attachment in the drive with the same SHA-256.
 */

let o: MailOrg;
beforeAll(async () => {
  o = await mailOrg();
});
afterAll(() => o.s.close());

const ORDER = Buffer.from('item,quantity\nfilter,12\npump,1\n');

describe('scenario 5: offline AI over a thread', () => {
  it('summarise (MCP), cached again; triage; extractAction makes triage tasks with one event; the filed attachment keeps its sha256', async () => {
    const first = await deliver(o, {
      messageId: '<po-1@client.example>',
      subject: 'Purchase order',
      text: 'Hi,\n\nOur purchase order is attached. Can you confirm the delivery date?\n\nAnn',
      attachments: [{ filename: 'purchase-order.csv', content: ORDER, contentType: 'text/csv' }],
    });
    const second = await deliver(o, {
      messageId: '<po-2@client.example>',
      inReplyTo: '<po-1@client.example>',
      references: '<po-1@client.example>',
      subject: 'Re: Purchase order',
      text: 'Also, please send the signed quote by Friday. Could you add two spare filters to the order?',
    });
    const threadId = first.messages[0].threadId;
    const [m1, m2] = [first.messages[0].messageId, second.messages[0].messageId];
    expect(second.messages[0].threadId).toBe(threadId);

    const agent = await connectInMemory(o.s.runtime, o.agent.key, { toolsets: 'email' });
    try {
      const names = (await agent.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(['email_summarise', 'email_triage', 'email_triageNow', 'email_extractAction', 'email_ask', 'email_fileAttachment']),
      );
      const summary = structured(await agent.client.callTool({ name: 'email_summarise', arguments: { threadId } }));
      expect(summary).toMatchObject({ status: 'answered', cached: false, changed: true });
      expect(summary.points.flatMap((p: any) => p.cites)).toEqual([m2, m2, m1, m1]);
      expect(summary.openQuestions[0]).toBe('Could you add two spare filters to the order?');
      expect(summary.openQuestions).toContain('Can you confirm the delivery date?');
      const again = structured(await agent.client.callTool({ name: 'email_summarise', arguments: { threadId } }));
      expect(again).toMatchObject({ cached: true, changed: false, points: summary.points, openQuestions: summary.openQuestions });
    } finally {
      await agent.close();
    }

    const triaged = await ok(o.s, 'email.triage', { threadId, apply: true }, o.agent.key);
    expect(triaged).toMatchObject({ category: 'billing', needsReply: true, applied: true });

    const before = await head(o.s);
    const { result } = await mutate(o.s, 'email.extractAction', { messageId: m2, createTasks: true }, 'email.action.extract', { key: o.agent.key });
    expect(result.actions.map((a: any) => a.text)).toEqual(['Send the signed quote by Friday', 'Add two spare filters to the order']);
    expect(result.taskIds).toHaveLength(2);
    expect((await eventsAfter(o.s, before)).map((e) => e.kind)).toEqual(['email.action.extract']);
    for (const taskId of result.taskIds) {
      expect((await o.s.client.get('board.context', { taskId })).body.task.col).toBe('triage');
    }

    const { message } = await ok(o.s, 'email.message', { messageId: m1 }, o.agent.key);
    const sha = createHash('sha256').update(ORDER).digest('hex');
    expect(message.attachments[0]).toMatchObject({ filename: 'purchase-order.csv', sha256: sha });
    const filed = await ok(o.s, 'email.fileAttachment', { attachmentId: message.attachments[0].id }, o.agent.key);
    expect(filed).toMatchObject({ sha256: sha, sizeBytes: ORDER.length, changed: true });
    expect((await ok(o.s, 'files.get', { fileId: filed.fileId }, o.mia.key)).file).toMatchObject({ sha256: sha, name: 'purchase-order.csv' });
  });
});
