import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { structured } from '../../mcp/fixtures.js';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger): doc text, tab titles and the text of ops
 * (Markdown, JSON, find/replace) show in no ledger event and no log line, across every doc method, suggestions and a
 * held accept included, refusals too; and no write's MCP result echoes them (reads return the doc, as they must).
 */

const CANARY = 'Quokka-Canary-7731';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('redaction canary', () => {
  it('no doc text, tab title or op text in any event, log line or write result', async () => {
    const agent = await s.client.ok('settings.mintApiKey', { name: 'agent', tier: 'agent' });
    const text = (field: string) => `${field} ${CANARY}`;
    const call = async (method: string, params: object, key?: string) => {
      const res = await s.client.rpc(method, params, { key });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const refuse = async (method: string, params: object) => {
      const res = await s.client.rpc(method, params);
      expect(res.body.ok).toBe(false);
    };
    const file = (await call('files.create', { kind: 'doc', name: 'plain name', content: { markdown: `# ${text('heading')}\n\n${text('paragraph')}` } })).file;
    const read = await call('files.docRead', { fileId: file.id, format: 'text' });
    expect(JSON.stringify(read)).toContain(CANARY);
    const [h, p] = read.blocks.map((b: any) => b.id);
    const writes = [
      await call('files.docWriteRevision', {
        fileId: file.id,
        baseRevision: 1,
        ops: [
          { op: 'replaceText', blockId: p, find: CANARY, replace: `${CANARY} again` },
          { op: 'insert', markdown: text('inserted') },
        ],
      }),
      await call('files.docWriteRevision', {
        fileId: file.id,
        baseRevision: 2,
        ops: [{ op: 'insert', nodes: [{ type: 'paragraph', content: [{ type: 'text', text: text('json') }] }] }],
      }),
      await call('files.docWriteRevision', {
        fileId: file.id,
        baseRevision: 3,
        mode: 'suggest',
        ops: [{ op: 'replace', blockId: h, markdown: text('suggested') }],
      }),
    ];
    const tab = await call('files.docTabOp', { fileId: file.id, op: 'add', title: 'tab' });
    await call('files.docTabOp', { fileId: file.id, op: 'rename', tabId: tab.tabId, title: 'renamed tab' });
    await call('files.docWriteRevision', { fileId: file.id, baseRevision: 5, ops: [{ op: 'setContent', tabId: tab.tabId, markdown: text('tab text') }] });
    const agentSug = (
      await call(
        'files.docWriteRevision',
        { fileId: file.id, baseRevision: 6, mode: 'suggest', ops: [{ op: 'insert', markdown: text('agent idea') }] },
        agent.apiKey,
      )
    ).suggestionId;
    const held = await call('files.docSuggestResolve', { suggestionId: agentSug, action: 'accept' }, agent.apiKey);
    expect(held.status).toBe('approval_required');
    await call('files.docSuggestResolve', { suggestionId: writes[2].suggestionId, action: 'accept' });
    await call('files.docSuggestResolve', { suggestionId: agentSug, action: 'reject' });
    expect(JSON.stringify(await call('files.docSuggestions', { fileId: file.id }))).toContain(CANARY);
    await call('files.exportRequest', { fileId: file.id, format: 'md' });
    // Refusals: their messages name fields, never the text.
    await refuse('files.docWriteRevision', { fileId: file.id, baseRevision: 1, ops: [{ op: 'replaceText', blockId: p, find: text('absent'), replace: 'x' }] });
    await refuse('files.docWriteRevision', { fileId: file.id, baseRevision: 7, ops: [{ op: 'replaceText', blockId: p, find: text('absent'), replace: 'x' }] });
    await refuse('files.docWriteRevision', {
      fileId: file.id,
      baseRevision: 7,
      ops: [{ op: 'insert', markdown: `![${CANARY}](https://${CANARY}.test/a.png)` }],
    });

    const mcp = await s.mcp(agent.apiKey);
    const mcpWrite = structured(
      await mcp.callTool({
        name: 'files_docWriteRevision',
        arguments: { fileId: file.id, baseRevision: 7, mode: 'suggest', ops: [{ op: 'insert', markdown: text('over mcp') }] },
      }),
    );
    expect(mcpWrite.outcome).toBe('suggested');
    const mcpTab = structured(await mcp.callTool({ name: 'files_docTabOp', arguments: { fileId: file.id, op: 'add', title: 'plain' } }));

    const ledger = await s.ledgerText();
    expect(ledger).toContain('files.doc.revise');
    expect(ledger).toContain('files.signature.hold');
    expectNoCanary(CANARY, { ledger, logs: s.logs(), writes: JSON.stringify(writes), mcp: JSON.stringify([mcpWrite, mcpTab]) });
  });
});
