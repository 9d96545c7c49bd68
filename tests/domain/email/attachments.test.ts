import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMailboxMembers } from '../../../domain/email/index.js';
import { mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { expectError } from '../../helpers/frames.js';
import { person, type Person } from '../../helpers/people.js';
import { download, folder } from '../files/drive-kit.js';
import { deliver, mailOrg, type MailOrg } from './kit.js';

/*
 * email.fileAttachment: an attachment's bytes become a drive upload with the same SHA-256 (downloaded byte for byte),
 * typed by sniffing and searchable by its text; filing again is a no-op naming the same file; a folder the caller may
 * edit; files.write needed; a mailbox the caller is not in is NOT_FOUND.
 */

let o: MailOrg;
let emailOnly: Person;
beforeAll(async () => {
  o = await mailOrg();
  emailOnly = await person(o.s, 'Email only', { scopes: ['email.read', 'email.write'], principalKind: 'agent' });
  await o.s.runtime.db.tx((q) => setMailboxMembers(q, o.s.org.orgId, { address: o.address, set: [{ principalId: emailOnly.id, role: 'agent' }], remove: [] }));
});
afterAll(() => o.s.close());

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const NOTES = Buffer.from('Harbour site notes: the gate code changes on Monday and the crane arrives on Tuesday.\n');

async function withAttachment(filename = 'site-notes.txt', content: Buffer = NOTES) {
  const got = await deliver(o, { subject: 'Notes attached', text: 'Notes attached.', attachments: [{ filename, content }] });
  const { message } = await ok(o.s, 'email.message', { messageId: got.messages[0].messageId });
  return { message, attachment: message.attachments[0] };
}

describe('email.fileAttachment', () => {
  it('files the same bytes (same SHA-256) as an upload of the caller, found by its words; again is a no-op naming that file', async () => {
    const { message, attachment } = await withAttachment();
    expect(attachment.sha256).toBe(sha(NOTES));
    const { result, event } = await mutate(o.s, 'email.fileAttachment', { attachmentId: attachment.id }, 'email.attachment.file', { key: o.agent.key });
    expect(result).toEqual({
      fileId: expect.stringMatching(/^fil_/),
      sha256: sha(NOTES),
      sizeBytes: NOTES.length,
      contentType: 'text/plain; charset=utf-8',
      changed: true,
    });
    expect(event.payload).toEqual({
      mailboxId: o.mailboxId,
      threadId: message.threadId,
      messageId: message.id,
      attachmentId: attachment.id,
      sha256: sha(NOTES),
      fileId: result.fileId,
      sizeBytes: NOTES.length,
    });
    const { file } = await ok(o.s, 'files.get', { fileId: result.fileId }, o.agent.key);
    expect(file).toMatchObject({
      kind: 'upload',
      name: 'site-notes.txt',
      sha256: sha(NOTES),
      sizeBytes: NOTES.length,
      revision: 1,
      createdBy: o.agent.id,
      parentId: null,
    });
    const exported = await ok(o.s, 'files.exportRequest', { fileId: result.fileId, format: 'original' }, o.agent.key);
    expect(Buffer.compare((await download(o.s, exported.url)).bytes, NOTES)).toBe(0);
    const found = await ok(o.s, 'files.list', { query: 'crane arrives' }, o.mia.key);
    expect(found.files.map((f: any) => f.id)).toContain(result.fileId);

    const { result: again, event: noop } = await mutate(o.s, 'email.fileAttachment', { attachmentId: attachment.id }, 'email.attachment.file', {
      key: o.mia.key,
    });
    expect(again).toEqual({ ...result, changed: false });
    expect(noop.payload).toEqual({ ...event.payload, sizeBytes: undefined, noop: true, fileId: result.fileId });
    // Trashed is still filed: the same file, recoverable.
    await ok(o.s, 'files.delete', { fileId: result.fileId }, o.agent.key);
    expect((await ok(o.s, 'email.fileAttachment', { attachmentId: attachment.id }, o.agent.key)).fileId).toBe(result.fileId);
  });

  it('into a folder the caller may edit; a restricted folder of someone else is NOT_FOUND, a file is BAD_REQUEST', async () => {
    const { attachment } = await withAttachment('plan.txt', Buffer.from('Plan: pour the slab on Thursday.\n'));
    const mine = await folder(o.s, o.mia.key, 'From mail');
    const res = await ok(o.s, 'email.fileAttachment', { attachmentId: attachment.id, folderId: mine.id }, o.mia.key);
    expect((await ok(o.s, 'files.get', { fileId: res.fileId }, o.mia.key)).file.parentId).toBe(mine.id);
    const other = await withAttachment('other.txt', Buffer.from('Other bytes entirely.\n'));
    const vault = await folder(o.s, o.max.key, 'Vault', { restricted: true });
    await refused(o.s, 'email.fileAttachment', { attachmentId: other.attachment.id, folderId: vault.id }, 'NOT_FOUND', { key: o.mia.key });
    await refused(o.s, 'email.fileAttachment', { attachmentId: other.attachment.id, folderId: res.fileId }, 'BAD_REQUEST', {
      key: o.mia.key,
      message: /not a folder/,
    });
  });

  it('files.write is needed; a non-member, another org and a bad id are refused, nothing appended', async () => {
    const { attachment } = await withAttachment('third.txt', Buffer.from('Third file.\n'));
    await refused(o.s, 'email.fileAttachment', { attachmentId: attachment.id }, 'FORBIDDEN_SCOPE', {
      key: emailOnly.key,
      message: /^missing scope files\.write, needed to file an attachment in the drive/,
    });
    await refused(o.s, 'email.fileAttachment', { attachmentId: attachment.id }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.fileAttachment', { attachmentId: 'fil_1' }, 'BAD_REQUEST', { message: /^attachmentId: must be an id of the form eatt_/ });
    expectError(await (await otherOrg(o.s)).rpc('email.fileAttachment', { attachmentId: attachment.id }), 'NOT_FOUND');
  });
});
