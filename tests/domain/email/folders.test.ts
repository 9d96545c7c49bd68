import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { expectError } from '../../helpers/frames.js';
import { deliver, folderRoles, inbound, mailOrg, type MailOrg, newDraft, folderOf } from './kit.js';

/*
 * email.move, email.folderRename and email.folderDelete: mail moves within its mailbox (a new path makes the
 * folder; ids stay), system folders keep their names, deleting a folder sends its mail to Archive, and agents file
 * mail but do not hide it (Spam, Trash) nor rename or delete folders. Events carry ids and roles, never a path.
 */

let o: MailOrg;
let folders: Record<string, string>;
beforeAll(async () => {
  o = await mailOrg();
  folders = await folderRoles(o);
});
afterAll(() => o.s.close());

describe('email.move', () => {
  it('a new path creates the folder; the thread moves whole, keeps its ids, and lists there', async () => {
    const t = await inbound(o, { subject: 'File me' });
    const { result, event } = await mutate(o.s, 'email.move', { ids: [t.threadId], path: ' Clients / Acme ' }, 'email.message.move', { key: o.agent.key });
    expect(result).toMatchObject({ moved: 1, created: true, changed: true, folder: { path: 'Clients/Acme', role: 'none', threads: 1, unread: 1 } });
    expect(event.payload).toEqual({ mailboxId: o.mailboxId, folderId: result.folder.id, folderRole: 'none', moved: 1, created: true });
    expect(JSON.stringify(event.payload)).not.toContain('Acme');
    expect(await folderOf(o, t.messageId)).toBe(result.folder.id);
    expect((await ok(o.s, 'email.threads', { mailboxId: o.mailboxId, folderId: result.folder.id })).threads.map((x: any) => x.id)).toEqual([t.threadId]);
    expect((await ok(o.s, 'email.threads', { mailboxId: o.mailboxId })).threads.map((x: any) => x.id)).not.toContain(t.threadId);
    // The same path again (any case) is the same folder; nothing left to move: a no-op.
    const { result: again, event: noop } = await mutate(o.s, 'email.move', { ids: [t.messageId], path: 'clients/acme' }, 'email.message.move');
    expect(again).toMatchObject({ moved: 0, created: false, changed: false, folder: { id: result.folder.id } });
    expect(noop.payload.noop).toBe(true);
    expect((await ok(o.s, 'email.move', { ids: [t.messageId], folderId: folders.archive })).moved).toBe(1);
  });

  it('another mailbox is BAD_REQUEST naming the id; drafts stay; Spam is a person’s act; bad paths BAD_REQUEST', async () => {
    const t = await inbound(o, { subject: 'Mine' });
    const other = await deliver(o, { envelopeTo: [o.otherAddress], subject: 'Theirs' });
    await refused(o.s, 'email.move', { ids: [t.messageId, other.messages[0].messageId], folderId: folders.archive }, 'BAD_REQUEST', {
      message: /^ids\.1: .* is in another mailbox/,
    });
    await refused(o.s, 'email.move', { ids: [t.messageId, other.messages[0].messageId], path: 'X' }, 'BAD_REQUEST', { message: /^ids: / });
    const draft = await newDraft(o, o.mia);
    await refused(o.s, 'email.move', { ids: [draft.id], folderId: folders.archive }, 'CONFLICT', { message: /drafts stay in Drafts/ });
    await refused(o.s, 'email.move', { ids: [t.messageId], folderId: folders.drafts }, 'BAD_REQUEST', {
      message: /^folderId: Drafts holds drafts only/,
    });
    await refused(o.s, 'email.move', { ids: [t.messageId], folderId: folders.spam }, 'FORBIDDEN_SCOPE', {
      key: o.agent.key,
      message: /yours is agent/,
    });
    expect((await ok(o.s, 'email.move', { ids: [t.messageId], folderId: folders.spam }, o.mia.key)).moved).toBe(1);
    await refused(o.s, 'email.move', { ids: [t.messageId], path: 'a//b' }, 'BAD_REQUEST', { message: /^path: / });
    await refused(o.s, 'email.move', { ids: [t.messageId] }, 'BAD_REQUEST', { message: /^folderId: give folderId or path/ });
    await refused(o.s, 'email.move', { ids: [t.messageId], path: 'X' }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.move', { ids: [other.messages[0].messageId], folderId: folders.archive }, 'NOT_FOUND', { key: o.max.key });
    expectError(await (await otherOrg(o.s)).rpc('email.move', { ids: [t.messageId], path: 'X' }), 'NOT_FOUND');
  });
});

describe('email.folderRename and email.folderDelete', () => {
  it('renames a folder and the paths below it; taken paths and system folders are CONFLICT; agents FORBIDDEN_SCOPE', async () => {
    const t = await inbound(o, { subject: 'Renamed' });
    const top = (await ok(o.s, 'email.move', { ids: [t.threadId], path: 'Projects' })).folder;
    const sub = (await ok(o.s, 'email.move', { ids: [(await inbound(o, { subject: 'Sub' })).threadId], path: 'Projects/2026' })).folder;
    await ok(o.s, 'email.move', { ids: [(await inbound(o, { subject: 'Taken' })).threadId], path: 'Done' });
    const { result, event } = await mutate(o.s, 'email.folderRename', { folderId: top.id, path: 'Work' }, 'email.folder.rename', { key: o.mia.key });
    expect(result).toMatchObject({ changed: true, folder: { id: top.id, path: 'Work', threads: 1 } });
    expect(event.payload).toEqual({ mailboxId: o.mailboxId, folderId: top.id, folders: 2 });
    const { mailboxes } = await ok(o.s, 'email.mailboxes', {});
    const paths = mailboxes.find((m: any) => m.id === o.mailboxId).folders.map((f: any) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['Work', 'Work/2026']));
    expect(paths).not.toContain('Projects/2026');
    expect(sub.id).toBeTruthy();
    const { result: same } = await mutate(o.s, 'email.folderRename', { folderId: top.id, path: 'Work' }, 'email.folder.rename');
    expect(same.changed).toBe(false);
    await refused(o.s, 'email.folderRename', { folderId: top.id, path: 'done' }, 'CONFLICT', { message: /already has the path/ });
    await refused(o.s, 'email.folderRename', { folderId: folders.inbox, path: 'Incoming' }, 'CONFLICT', { message: /system folder/ });
    await refused(o.s, 'email.folderRename', { folderId: top.id, path: 'Agent' }, 'FORBIDDEN_SCOPE', { key: o.agent.key });
    await refused(o.s, 'email.folderRename', { folderId: top.id, path: 'Max' }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.folderRename', { folderId: top.id, path: '' }, 'BAD_REQUEST', { message: /^path: / });
  });

  it('deletes a folder and those below it, their mail to Archive; system folders CONFLICT', async () => {
    const a = await inbound(o, { subject: 'Old 1' });
    const b = await inbound(o, { subject: 'Old 2' });
    const top = (await ok(o.s, 'email.move', { ids: [a.threadId], path: 'Old' })).folder;
    await ok(o.s, 'email.move', { ids: [b.threadId], path: 'Old/Older' });
    await refused(o.s, 'email.folderDelete', { folderId: top.id }, 'FORBIDDEN_SCOPE', { key: o.agent.key });
    const { result, event } = await mutate(o.s, 'email.folderDelete', { folderId: top.id }, 'email.folder.delete', { key: o.mia.key });
    expect(result).toEqual({ deleted: 2, moved: 2, changed: true });
    expect(event.payload).toEqual({ mailboxId: o.mailboxId, folderId: top.id, folders: 2, moved: 2, archiveFolderId: folders.archive });
    expect(await folderOf(o, a.messageId)).toBe(folders.archive);
    expect(await folderOf(o, b.messageId)).toBe(folders.archive);
    expect((await ok(o.s, 'email.threads', { mailboxId: o.mailboxId, folderId: folders.archive })).threads.map((x: any) => x.id)).toEqual(
      expect.arrayContaining([a.threadId, b.threadId]),
    );
    await refused(o.s, 'email.folderDelete', { folderId: top.id }, 'NOT_FOUND');
    for (const role of ['inbox', 'archive', 'trash'])
      await refused(o.s, 'email.folderDelete', { folderId: folders[role] }, 'CONFLICT', { message: /system folder/ });
  });
});
