import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { connectInMemory, structured, toolError } from '../../../mcp/fixtures.js';
import { task } from './kit.js';
import { ok } from '../../../helpers/calls.js';

/* Annotations, discussions and pins over MCP (the files desk): listed tools, a thread's life, a pin, an error frame. */

describe('annotations over MCP', () => {
  it('an agent annotates a task, comments, pins it; a human resolves; errors come back as frames', async ({ annotation: o }) => {
    const a = await connectInMemory(o.s.runtime, o.agent.key, { toolsets: 'files' });
    try {
      const tools = (await a.client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(
        expect.arrayContaining([
          'annotation_create',
          'annotation_comment',
          'annotation_resolve',
          'annotation_dismiss',
          'annotation_getThread',
          'annotation_list',
          'file_addComment',
          'file_listComments',
          'file_pin',
          'file_unpin',
          'file_listPinned',
          'files_comments',
          'files_commentAdd',
          'files_commentResolve',
          'files_pin',
        ]),
      );
      const t = await task(o.s);
      const created = structured(
        await a.client.callTool({ name: 'annotation_create', arguments: { targetId: t, kind: 'comment', body: 'Estimate looks low.' } }),
      );
      expect(created).toMatchObject({ changed: true, annotation: { targetId: t, createdBy: o.agent.id, status: 'open' } });
      const reply = structured(
        await a.client.callTool({
          name: 'annotation_comment',
          arguments: { annotationId: created.annotation.id, body: 'Checked: it is 3 days.', clientMsgId: 'mcp-1' },
        }),
      );
      expect(reply.comment).toMatchObject({ seq: 2, clientMsgId: 'mcp-1' });
      const again = structured(
        await a.client.callTool({
          name: 'annotation_comment',
          arguments: { annotationId: created.annotation.id, body: 'Checked: it is 3 days.', clientMsgId: 'mcp-1' },
        }),
      );
      expect(again).toMatchObject({ changed: false, comment: { id: reply.comment.id } });
      const pinned = structured(await a.client.callTool({ name: 'file_pin', arguments: { targetId: t, place: 'org' } }));
      expect(pinned.pin).toMatchObject({ targetId: t, place: 'org', pinnedBy: o.agent.id });

      await ok(o.s, 'annotation.resolve', { annotationId: created.annotation.id }, o.mia.key);
      const read = structured(await a.client.callTool({ name: 'annotation_getThread', arguments: { annotationId: created.annotation.id } }));
      expect(read.annotation.status).toBe('resolved');
      expect(read.comments.map((c: any) => c.author)).toEqual([o.agent.id, o.agent.id]);

      expect(toolError(await a.client.callTool({ name: 'annotation_create', arguments: { targetId: 'task_0123456789abcdef', kind: 'flag' } }))).toEqual({
        code: 'NOT_FOUND',
        message: 'task_0123456789abcdef not found',
      });
    } finally {
      await a.close();
    }
  });
});
