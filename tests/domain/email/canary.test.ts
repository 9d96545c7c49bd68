import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailbox, receiveMessage } from '../../../domain/email/index.js';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';
import { mime } from './kit.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger): a canary in every free-text field of the email
 * family (addresses, names, subjects, bodies, attachment names, folder paths, signatures, decision texts, emoji,
 * search words) shows in no ledger event and no log line; over MCP the caller gets its words back, the ledger none.
 */

const CANARY = 'Quokka-Canary-5519';
const low = CANARY.toLowerCase();
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('email redaction canary', () => {
  it('no address, name, subject, body, path, signature or decision text in any event or log line', async () => {
    const call = async (method: string, params: object) => {
      const res = await s.client.rpc(method, params);
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const me = (await s.client.get('org/whoami')).body.principal.id;
    const address = `${low}@acme.example`;
    const { mailboxId } = await s.runtime.db.tx((q) =>
      createMailbox(q, s.org.orgId, { address, displayName: CANARY, members: [{ principalId: me, role: 'owner' }] }),
    );
    const raw = await mime({
      from: `${CANARY} <${low}@client.example>`,
      to: address,
      cc: `${low}-cc@client.example`,
      subject: `Subject ${CANARY}`,
      text: `Body ${CANARY}\n\nOn Mon, ${CANARY} wrote:\n> quoted ${CANARY}`,
      html: `<p>${CANARY}</p>`,
      attachments: [{ filename: `${CANARY}.txt`, content: CANARY }],
    });
    const got = await receiveMessage(s.runtime.deps, { orgId: s.org.orgId, raw, envelope: { from: `${low}@client.example`, to: [address] } });
    const { messageId, threadId } = got.messages[0];
    const draft = (await call('email.draftSave', { replyToMessageId: messageId, text: `Reply ${CANARY}`, bcc: [`${CANARY} <${low}-bcc@client.example>`] }))
      .draft;
    await call('email.draftSave', { draftId: draft.id, subject: `Re: ${CANARY}`, expectedVersion: 1 });
    await call('email.draftDiscard', { draftId: draft.id });
    await call('email.markRead', { ids: [threadId] });
    await call('email.markAllRead', { mailboxId });
    const moved = await call('email.move', { ids: [threadId], path: `Folder ${CANARY}` });
    await call('email.folderRename', { folderId: moved.folder.id, path: `Renamed ${CANARY}` });
    await call('email.react', { messageId, emoji: `:${low}:` });
    const sig = (await call('email.signatureSave', { mailboxId, name: `Sig ${CANARY}`, text: CANARY, html: `<b>${CANARY}</b>` })).signature;
    await call('email.signatureDelete', { signatureId: sig.id });
    await call('email.delegate', { threadId, to: me });
    await call('email.logDecision', { threadId, kind: 'note', text: `Decision ${CANARY}` });
    expect((await call('email.messages', { query: `${CANARY} from:${low}` })).messages).toHaveLength(1);
    expect((await call('email.thread', { threadId })).messages[0].quoted).toContain(CANARY);
    await call('email.folderDelete', { folderId: moved.folder.id });

    const ledger = await s.ledgerText();
    for (const kind of [
      'email.mailbox.create',
      'email.message.receive',
      'email.draft.save',
      'email.draft.discard',
      'email.message.mark_read',
      'email.mailbox.mark_all_read',
      'email.message.move',
      'email.folder.rename',
      'email.message.react',
      'email.signature.save',
      'email.signature.delete',
      'email.thread.delegate',
      'email.decision.log',
      'email.folder.delete',
    ]) {
      expect(ledger).toContain(kind);
    }
    expect(ledger).toContain('client.example');
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
  });

  it('over MCP: the words come back to the caller, the ledger still holds none', async () => {
    const mcp = await s.mcp();
    const { mailboxes } = await s.client.ok<{ mailboxes: { id: string }[] }>('email.mailboxes', {});
    const res = await mcp.callTool({ name: 'email_draftSave', arguments: { mailboxId: mailboxes[0].id, subject: `MCP ${CANARY}`, to: ['a@b.example'] } });
    expect(res.isError).toBeFalsy();
    expect(JSON.stringify(res.content)).toContain(CANARY);
    expectNoCanary(CANARY, { ledger: await s.ledgerText(), logs: s.logs() });
  });
});
