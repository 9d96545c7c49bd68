import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';
import { tinyPdf } from './drive-kit.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger): a canary in every free-text field of the drive
 * (file names, upload bytes and their extracted text, search words, an outside email) and the guest link's token show
 * in no ledger event and no log line; the token is in no stored idempotency frame either (sealed), and guest page
 * requests log no token.
 */

const CANARY = 'Okapi-Canary-7731';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('redaction canary', () => {
  it('no name, content, query, email or guest token in any event, log line or stored frame', async () => {
    const agent = await s.client.ok('settings.mintApiKey', { name: 'agent', tier: 'agent' });
    const name = (what: string) => `${what} ${CANARY}`;
    const call = async (method: string, params: object, opts: { key?: string; idem?: string } = {}) => {
      const res = await s.client.rpc(method, params, opts);
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const dir = (await call('files.create', { kind: 'folder', name: name('folder'), restricted: true })).file;
    const pdf = tinyPdf(`Body ${CANARY} text`);
    const up = (await call('files.uploadRegister', { name: name('upload'), parentId: dir.id, contentBase64: pdf.toString('base64') })).file;
    await call('files.uploadRegister', { fileId: up.id, name: name('renamed version'), contentBase64: Buffer.from(`v2 ${CANARY}`).toString('base64') });
    await call('files.rename', { fileId: up.id, name: name('rename') });
    const copy = (await call('files.duplicate', { fileId: up.id, name: name('copy') })).file;
    await call('files.list', { query: CANARY });
    expect((await call('files.list', { query: 'Okapi' })).files.length).toBeGreaterThan(0);
    await call('files.star', { fileId: copy.id, starred: true });
    await call('files.move', { fileId: copy.id, parentId: null });
    const exported = await call('files.exportRequest', { fileId: up.id, format: 'original' });
    const email = `${CANARY.toLowerCase()}@outside.example`;
    const shared = await call('files.shareGrant', { fileId: dir.id, grantee: { email }, role: 'viewer', notify: true }, { idem: 'share-1' });
    const token = new URL(shared.guestUrl).pathname.split('/')[2];
    expect(token).toMatch(/^org_/);
    // The guest page: its request is logged with the token redacted.
    expect((await s.app.inject({ method: 'GET', url: `/share/${token}` })).statusCode).toBe(200);
    expect((await s.app.inject({ method: 'GET', url: `/share/${token}/f/${up.id}/download` })).statusCode).toBe(200);
    await call('files.get', { fileId: dir.id });
    await call('files.shareRevoke', { fileId: dir.id, grantId: shared.grant.id });
    // An agent's held email share.
    const mine = (await call('files.create', { kind: 'folder', name: name('agent folder') }, { key: agent.apiKey })).file;
    const hold = await call('files.shareGrant', { fileId: mine.id, grantee: { email: `agent-${email}` }, role: 'viewer' }, { key: agent.apiKey });
    expect(hold.status).toBe('approval_required');
    await call('files.delete', { fileId: copy.id });
    await call('files.recover', { fileId: copy.id });
    await call('files.delete', { fileId: copy.id });
    await call('files.delete', { fileId: copy.id, permanent: true });

    const ledger = await s.ledgerText();
    for (const kind of [
      'files.file.create',
      'files.upload.register',
      'files.share.grant',
      'files.share.download',
      'files.export.create',
      'files.signature.hold',
      'files.file.purge',
    ]) {
      expect(ledger).toContain(kind);
    }
    const idem = await s.idempotencyText();
    expectNoCanary([CANARY, token.split('.')[1], new URL(exported.url).searchParams.get('sig')!], { ledger, logs: s.logs() });
    expectNoCanary(token.split('.')[1], { idempotency: idem });
    expect(s.logs()).toContain('/share/[Redacted]');
  });

  it('sheets, decks, feeds and asks: no cell, formula, slide, fed value or question text in any event or log line', async () => {
    const call = async (method: string, params: object) => {
      const res = await s.client.rpc(method, params);
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const sheet = (
      await call('files.create', { kind: 'sheet', name: 'Plain', content: { tabs: [{ title: 'T', cells: { A1: `cell ${CANARY}`, B1: `=A1&"${CANARY}"` } }] } })
    ).file;
    await call('files.sheetWriteCells', { fileId: sheet.id, cells: [{ a1: 'C1', input: `written ${CANARY}` }] });
    await call('files.sheetTabOp', { fileId: sheet.id, op: 'insertRows', tabId: (await call('files.sheetRead', { fileId: sheet.id })).tabId, at: 1 });
    // A feed of the drive's own listing: its rows are file names holding the canary.
    const dir = (await call('files.create', { kind: 'folder', name: 'Listed' })).file;
    await call('files.create', { kind: 'folder', name: `listed ${CANARY}`, parentId: dir.id });
    const fed = await call('files.sheetFedRange', {
      fileId: sheet.id,
      op: 'set',
      anchor: 'E5',
      source: { method: 'files.list', params: { parentId: dir.id }, rows: 'files', columns: ['name'] },
    });
    expect(JSON.stringify(await call('files.sheetRead', { fileId: sheet.id }))).toContain(CANARY);
    await call('files.sheetFedRange', { fileId: sheet.id, op: 'refresh' });
    await call('files.sheetFedRange', { fileId: sheet.id, op: 'remove', feedId: fed.feeds[0].id });
    const deck = (
      await call('files.create', { kind: 'deck', name: 'Plain deck', content: { slides: [{ title: `slide ${CANARY}`, body: CANARY, notes: CANARY }] } })
    ).file;
    const head = await call('files.deckRead', { fileId: deck.id });
    await call('files.deckWriteSlides', {
      fileId: deck.id,
      baseRevision: head.revision,
      ops: [{ op: 'update', slideId: head.slides[0].id, fields: { title: `retitled ${CANARY}` } }],
    });
    for (const format of ['xlsx', 'csv', 'pdf']) await call('files.exportRequest', { fileId: sheet.id, format });
    for (const format of ['pptx', 'pdf', 'md']) await call('files.exportRequest', { fileId: deck.id, format });
    await call('files.ask', { question: `what does the sheet say about ${CANARY}?` });
    const ledger = await s.ledgerText();
    for (const kind of [
      'files.sheet.write',
      'files.sheet_tab.change',
      'files.sheet_feed.set',
      'files.sheet_feed.refresh',
      'files.sheet_feed.remove',
      'files.deck.revise',
    ])
      expect(ledger).toContain(kind);
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
  });

  it('over MCP: names come back to the caller, the ledger still holds none', async () => {
    const mcp = await s.mcp();
    const res = await mcp.callTool({ name: 'files_create', arguments: { kind: 'folder', name: `mcp ${CANARY}` } });
    expect(res.isError).toBeFalsy();
    expectNoCanary(CANARY, { ledger: await s.ledgerText(), logs: s.logs() });
  });
});
