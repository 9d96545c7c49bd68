import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { head, mutate, ok, refused } from '../../helpers/calls.js';
import { inbound, mailOrg, newDraft, type MailOrg } from './kit.js';

/*
 * email.moveMailbox: a thread goes to another mailbox with its messages and drafts, ids kept, folders mapped by role
 * (a folder of the old mailbox's own to Inbox); members of the old mailbox only lose it, members of the new one find
 * it; owners and members of both only; mail waiting to leave is CONFLICT.
 */

let o: MailOrg;
beforeAll(async () => {
  o = await mailOrg();
});
afterAll(() => o.s.close());

const foldersOf = async (mailboxId: string) => {
  const { mailboxes } = await ok(o.s, 'email.mailboxes', {});
  return mailboxes.find((b: any) => b.id === mailboxId).folders as { id: string; role: string; path: string; threads: number }[];
};

async function busyThread() {
  const a = await inbound(o, { subject: 'Acme order', text: 'Please ship the order.' });
  const b = await inbound(o, { subject: 'Re: Acme order', text: 'And the invoice, please.', inReplyTo: `<${a.rfcId}>` });
  const c = await inbound(o, { subject: 'Re: Acme order', text: 'Thanks for shipping.', inReplyTo: `<${a.rfcId}>` });
  await ok(o.s, 'email.move', { ids: [a.messageId], path: 'Clients/Acme' }, o.mia.key);
  const archive = (await foldersOf(o.mailboxId)).find((f) => f.role === 'archive')!;
  await ok(o.s, 'email.move', { ids: [b.messageId], folderId: archive.id }, o.mia.key);
  const draft = await newDraft(o, o.mia, { replyToMessageId: c.messageId, text: 'Shipped today.' });
  await ok(o.s, 'email.delegate', { threadId: a.threadId, to: o.mia.id }, o.mia.key);
  await ok(o.s, 'email.logDecision', { threadId: a.threadId, kind: 'note', text: 'Big customer.' }, o.mia.key);
  return { threadId: a.threadId, ids: [a.messageId, b.messageId, c.messageId], draftId: draft.id };
}

describe('email.moveMailbox', () => {
  it('moves the thread with its messages and draft: ids kept, folders by role, own folders to Inbox; who can see it follows', async () => {
    const t = await busyThread();
    const { result, event } = await mutate(o.s, 'email.moveMailbox', { threadId: t.threadId, toMailboxId: o.otherId }, 'email.thread.move_mailbox');
    expect(result).toMatchObject({ moved: 4, unassigned: true, changed: true });
    expect(result.thread).toMatchObject({ id: t.threadId, mailboxId: o.otherId, assigneeId: null, messageCount: 4 });
    expect(event.payload).toEqual({
      mailboxIds: [o.mailboxId, o.otherId].sort(),
      fromMailboxId: o.mailboxId,
      toMailboxId: o.otherId,
      threadId: t.threadId,
      moved: 4,
      unassigned: true,
    });
    const folders = await foldersOf(o.otherId);
    const role = (id: string) => folders.find((f) => f.id === id)?.role;
    const shown = await ok(o.s, 'email.thread', { threadId: t.threadId }, o.max.key);
    expect(shown.messages.map((m: any) => [m.id, m.mailboxId, role(m.folderId)])).toEqual([
      [t.ids[0], o.otherId, 'inbox'],
      [t.ids[1], o.otherId, 'archive'],
      [t.ids[2], o.otherId, 'inbox'],
      [t.draftId, o.otherId, 'drafts'],
    ]);
    expect(shown.decisions).toHaveLength(1);
    const inbox = await ok(o.s, 'email.threads', { mailboxId: o.otherId }, o.max.key);
    expect(inbox.threads.map((x: any) => x.id)).toContain(t.threadId);
    expect((await ok(o.s, 'email.threads', { mailboxId: o.mailboxId }, o.mia.key)).threads.map((x: any) => x.id)).not.toContain(t.threadId);
    await refused(o.s, 'email.thread', { threadId: t.threadId }, 'NOT_FOUND', { key: o.mia.key });
    expect((await foldersOf(o.mailboxId)).find((f) => f.path === 'Clients/Acme')!.threads).toBe(0);
    // Back again: the owner's act, a no-op when already there.
    const { result: same, event: noop } = await mutate(o.s, 'email.moveMailbox', { threadId: t.threadId, toMailboxId: o.otherId }, 'email.thread.move_mailbox');
    expect(same).toMatchObject({ moved: 0, changed: false });
    expect(noop.payload.noop).toBe(true);
    expect((await ok(o.s, 'email.moveMailbox', { threadId: t.threadId, toMailboxId: o.mailboxId })).thread.mailboxId).toBe(o.mailboxId);
  });

  it('owners and members of both mailboxes only: an agent is FORBIDDEN_SCOPE, a mailbox you are not in NOT_FOUND', async () => {
    const t = await inbound(o, { subject: 'Agent tries', text: 'Hello there, a plain note.' });
    const before = await head(o.s);
    await refused(o.s, 'email.moveMailbox', { threadId: t.threadId, toMailboxId: o.otherId }, 'NOT_FOUND', { key: o.agent.key });
    await refused(o.s, 'email.moveMailbox', { threadId: t.threadId, toMailboxId: o.otherId }, 'NOT_FOUND', { key: o.mia.key });
    await refused(o.s, 'email.moveMailbox', { threadId: t.threadId, toMailboxId: o.mailboxId }, 'FORBIDDEN_SCOPE', {
      key: o.agent.key,
      message: /^missing role owner or member in this mailbox \(yours is agent\), needed to move a thread out of this mailbox/,
    });
    await refused(o.s, 'email.moveMailbox', { threadId: t.threadId, toMailboxId: o.mailboxId }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.moveMailbox', { threadId: t.threadId, toMailboxId: 'thr_1' }, 'BAD_REQUEST', { message: /^toMailboxId: / });
    expect(await head(o.s)).toBe(before);
  });

  it('mail waiting to leave (scheduled or held) is CONFLICT: nothing moves', async () => {
    const t = await inbound(o, { subject: 'Waiting', text: 'Please reply soon.' });
    const draft = await newDraft(o, o.mia, { replyToMessageId: t.messageId, text: 'On its way.' });
    // As the sending slice leaves a message in its undo window.
    await o.s.runtime.db.query(`UPDATE email_messages SET state = 'scheduled' WHERE org_id = $1 AND message_id = $2`, [o.s.org.orgId, draft.id]);
    await refused(o.s, 'email.moveMailbox', { threadId: t.threadId, toMailboxId: o.otherId }, 'CONFLICT', {
      message: new RegExp(`^message ${draft.id} is scheduled to leave: let it go or call it back \\(email\\.undoSend\\)`),
    });
    expect((await ok(o.s, 'email.thread', { threadId: t.threadId })).thread.mailboxId).toBe(o.mailboxId);
  });
});
