import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { connectInMemory, structured, toolError } from '../../mcp/fixtures.js';
import { makeDoc, readAll, textOf } from './docs-kit.js';
import { approved, ok } from '../../helpers/calls.js';

/* Docs over MCP (the docs desk): an agent reads Markdown with block ids, suggests on a review-mode doc, and its accept holds. */

describe('docs over MCP', () => {
  it('an agent reads by block, edits as a suggestion, and its accept completes after a human approves', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: '# Brief\n\nDeadline is Friday.' }, { reviewMode: true });
    const a = await connectInMemory(o.s.runtime, o.agent.key, { toolsets: 'docs' });
    try {
      const tools = (await a.client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(
        expect.arrayContaining(['files_docRead', 'files_docWriteRevision', 'files_docTabOp', 'files_docSuggestions', 'files_docSuggestResolve']),
      );
      const read = structured(await a.client.callTool({ name: 'files_docRead', arguments: { fileId: file.id, format: 'markdown' } }));
      expect(read.blocks.map((b: any) => b.markdown)).toEqual(['# Brief', 'Deadline is Friday.']);
      const edit = structured(
        await a.client.callTool({
          name: 'files_docWriteRevision',
          arguments: { fileId: file.id, baseRevision: read.head, ops: [{ op: 'replaceText', blockId: read.blocks[1].id, find: 'Friday', replace: 'Monday' }] },
        }),
      );
      expect(edit).toMatchObject({ outcome: 'suggested', suggestionId: expect.stringMatching(/^sug_/) });
      const bad = toolError(
        await a.client.callTool({
          name: 'files_docWriteRevision',
          arguments: { fileId: file.id, baseRevision: 9, ops: [{ op: 'delete', blockId: read.blocks[1].id }] },
        }),
      );
      expect(bad).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^baseRevision: /) });

      const hold = structured(await a.client.callTool({ name: 'files_docSuggestResolve', arguments: { suggestionId: edit.suggestionId, action: 'accept' } }));
      expect(hold).toMatchObject({ status: 'approval_required', approval: { actionClass: 'files.doc_suggest_resolve' } });
      const approvalId = await approved(o.s, hold.approval, o.agent.key, o.owner.key);
      const done = structured(
        await a.client.callTool({ name: 'files_docSuggestResolve', arguments: { suggestionId: edit.suggestionId, action: 'accept', approvalId } }),
      );
      expect(done).toMatchObject({ changed: true, revision: 2, suggestion: { status: 'accepted' } });
      expect(textOf((await readAll(o, file.id, o.mia.key)).blocks[1])).toBe('Deadline is Monday.');
      const listed = structured(await a.client.callTool({ name: 'files_docSuggestions', arguments: { fileId: file.id } }));
      expect(listed.suggestions[0]).toMatchObject({ status: 'accepted', revision: 2 });
      expect((await ok(o.s, 'files.get', { fileId: file.id }, o.mia.key)).file.revision).toBe(2);
    } finally {
      await a.close();
    }
  });
});
