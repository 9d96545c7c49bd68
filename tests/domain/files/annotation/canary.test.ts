import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../../helpers/canary.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger): a canary in every free-text field of annotations,
 * comments and pins (bodies, a doc quote with its prefix and suffix, the doc text a quote is captured from,
 * clientMsgIds) shows in no ledger event and no log line, across every method of annotation.*, file.* and the files
 * comment views, over HTTP and MCP.
 */

const CANARY = 'Quokka-Canary-5521';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('redaction canary', () => {
  it('no body, quote, selector text or clientMsgId in any event or log line', async () => {
    const text = (field: string) => `${field} ${CANARY}`;
    const call = async (method: string, params: object, key?: string) => {
      const res = await s.client.rpc(method, params, { key });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const agent = await s.client.ok('settings.mintApiKey', { name: 'agent', tier: 'agent' });
    const d = (await call('files.create', { kind: 'doc', name: 'Doc', content: { markdown: `Intro ${CANARY} words here.` } })).file;
    const [block] = (await call('files.docRead', { fileId: d.id, format: 'text' })).blocks;
    const captured = (
      await call('files.commentAdd', {
        fileId: d.id,
        body: text('doc body'),
        selector: { type: 'block', tabId: block.tabId, blockId: block.id, start: 6, end: 24 },
        clientMsgId: `${CANARY}-1`,
      })
    ).annotation;
    expect(captured.selector.quote.exact).toContain(CANARY);
    const quoted = (
      await call('annotation.create', {
        targetId: d.id,
        kind: 'highlight',
        selector: { type: 'block', tabId: block.tabId, blockId: block.id, start: 0, end: 5, quote: { exact: 'Intro', prefix: '', suffix: ` ${CANARY}` } },
        body: text('highlight body'),
      })
    ).annotation;
    await call('annotation.comment', { annotationId: quoted.id, body: text('reply'), clientMsgId: `${CANARY}-2` }, agent.apiKey);
    await call('annotation.comment', { annotationId: quoted.id, body: text('reply'), clientMsgId: `${CANARY}-2` }, agent.apiKey);
    await call('annotation.resolve', { annotationId: quoted.id });
    await call('annotation.resolve', { annotationId: quoted.id, reopen: true });
    await call('annotation.dismiss', { annotationId: quoted.id });
    await call('files.commentAdd', { fileId: d.id, body: text('files reply'), annotationId: captured.id });
    await call('files.commentResolve', { fileId: d.id, annotationId: captured.id, resolved: true });
    await call('file.addComment', { targetId: d.id, body: text('discussion'), clientMsgId: `${CANARY}-3` });
    const pin = (await call('file.pin', { targetId: d.id, place: 'org' })).pin;
    await call('file.unpin', { pinId: pin.id });
    await call('files.pin', { fileId: d.id, pinned: true });
    await call('annotation.getThread', { annotationId: quoted.id });
    await call('annotation.list', { targetId: d.id });
    await call('file.listComments', { targetId: d.id });
    await call('file.listPinned', { place: 'org' });
    await call('files.comments', { fileId: d.id });
    // The quote re-anchors on a revision without showing up either.
    const base = (await call('files.docRead', { fileId: d.id })).head;
    await call('files.docWriteRevision', {
      fileId: d.id,
      baseRevision: base,
      ops: [{ op: 'replaceText', blockId: block.id, find: 'Intro', replace: 'Opening' }],
    });

    const mcp = await s.mcp(agent.apiKey);
    const res = (await mcp.callTool({ name: 'annotation_create', arguments: { targetId: d.id, kind: 'comment', body: text('mcp body') } })) as any;
    expect(res.isError ?? false).toBe(false);

    const ledger = await s.ledgerText();
    expect(ledger).toContain('annotation.thread.dismiss');
    expect(ledger).toContain('files.pin.set');
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
  });
});
