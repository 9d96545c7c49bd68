import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { head, ok, otherOrg, refused } from '../../helpers/calls.js';
import { expectError } from '../../helpers/frames.js';
import { deliver, inbound, mailOrg, newDraft, type MailOrg } from './kit.js';

/*
 * The reads (email.read, R): only a mailbox's members see it or anything in it (NOT_FOUND otherwise, as for another
 * org's); read state is each principal's own, and reading appends nothing and marks nothing read.
 */

let o: MailOrg;
let root: { messageId: string; threadId: string; rfcId: string };
beforeAll(async () => {
  o = await mailOrg();
  root = await inbound(o, { subject: 'Pricing', text: 'What does the plan cost?', messageId: '<pricing-1@client.example>' });
  await inbound(o, {
    subject: 'Re: Pricing',
    inReplyTo: '<pricing-1@client.example>',
    text: 'And is there a discount?\n\nOn Mon, 2 Mar 2026, Sales <sales@acme.example> wrote:\n> It is $10.\n> Per seat.\n',
  });
});
afterAll(() => o.s.close());

describe('email.mailboxes', () => {
  it("lists the caller's mailboxes with role, members, folders and counts; nothing for a non-member", async () => {
    const before = await head(o.s);
    const { mailboxes } = await ok(o.s, 'email.mailboxes', {}, o.mia.key);
    expect(mailboxes.map((m: any) => m.id)).toEqual([o.mailboxId]);
    const box = mailboxes[0];
    expect(box).toMatchObject({ address: o.address, role: 'member', policy: 'review_external', undoSeconds: 10, hold: false, delivery: 'outbox' });
    expect(box.members).toEqual(
      expect.arrayContaining([
        { principalId: o.owner.id, role: 'owner' },
        { principalId: o.agent.id, role: 'agent' },
      ]),
    );
    expect(box.folders.map((f: any) => f.role)).toEqual(['inbox', 'drafts', 'sent', 'archive', 'spam', 'trash']);
    expect(box.folders[0]).toMatchObject({ path: 'Inbox', threads: 1, unread: 2 });
    expect((await ok(o.s, 'email.mailboxes', {}, o.viewer.key)).mailboxes).toEqual([]);
    const both = await ok(o.s, 'email.mailboxes', { limit: 1 });
    expect(both.mailboxes).toHaveLength(1);
    const rest = await ok(o.s, 'email.mailboxes', { limit: 1, cursor: both.nextCursor });
    expect([both.mailboxes[0].id, rest.mailboxes[0].id].sort()).toEqual([o.mailboxId, o.otherId].sort());
    expect(rest.nextCursor).toBeNull();
    expect(await head(o.s), 'reads append nothing').toBe(before);
  });
});

describe('email.threads and email.thread', () => {
  it("a folder's threads, newest first and paged; a thread with quoted text collapsed", async () => {
    const later = await inbound(o, { subject: 'Later', text: 'news' });
    const page1 = await ok(o.s, 'email.threads', { mailboxId: o.mailboxId, limit: 1 }, o.mia.key);
    expect(page1.threads.map((t: any) => t.id)).toEqual([later.threadId]);
    const page2 = await ok(o.s, 'email.threads', { mailboxId: o.mailboxId, limit: 1, cursor: page1.nextCursor }, o.mia.key);
    expect(page2.threads.map((t: any) => t.id)).toEqual([root.threadId]);
    expect(page2.threads[0]).toMatchObject({ subject: 'Pricing', messageCount: 2, unread: 2, assigneeId: null, snippet: 'And is there a discount?' });
    const { thread, messages, decisions, summary } = await ok(o.s, 'email.thread', { threadId: root.threadId }, o.agent.key);
    expect(thread.id).toBe(root.threadId);
    expect(messages).toHaveLength(2);
    expect(messages[0].quoted).toBeNull();
    expect(messages[1].text).toBe('And is there a discount?');
    expect(messages[1].quoted).toMatch(/^On Mon, 2 Mar 2026.*wrote:\n> It is \$10\.\n> Per seat\.$/s);
    expect(decisions).toEqual([]);
    expect(summary).toBeNull();
  });

  it('Sent or another folder by folderId; a folder of another mailbox is BAD_REQUEST; a non-member NOT_FOUND', async () => {
    const { mailboxes } = await ok(o.s, 'email.mailboxes', {});
    const sent = mailboxes.find((m: any) => m.id === o.mailboxId).folders.find((f: any) => f.role === 'sent');
    expect((await ok(o.s, 'email.threads', { mailboxId: o.mailboxId, folderId: sent.id })).threads).toEqual([]);
    const otherInbox = mailboxes.find((m: any) => m.id === o.otherId).folders[0];
    await refused(o.s, 'email.threads', { mailboxId: o.mailboxId, folderId: otherInbox.id }, 'BAD_REQUEST', { message: /^folderId: / });
    await refused(o.s, 'email.threads', { mailboxId: o.mailboxId }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.thread', { threadId: root.threadId }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.message', { messageId: root.messageId }, 'NOT_FOUND', { key: o.viewer.key });
    const other = await otherOrg(o.s);
    expectError(await other.rpc('email.thread', { threadId: root.threadId }), 'NOT_FOUND');
    expectError(await other.rpc('email.message', { messageId: root.messageId }), 'NOT_FOUND');
    expectError(await other.rpc('email.threads', { mailboxId: o.mailboxId }), 'NOT_FOUND');
    await refused(o.s, 'email.thread', { threadId: 'thr_unknown' }, 'NOT_FOUND');
    await refused(o.s, 'email.thread', { threadId: 'msg_1' }, 'BAD_REQUEST', { message: /^threadId: / });
  });
});

describe('email.messages', () => {
  it('operators and words; read state is per principal; bad dates are BAD_REQUEST naming the query', async () => {
    await deliver(o, {
      from: 'Bea <bea@vendor.example>',
      subject: 'Overdue invoice',
      text: 'The invoice is overdue by ten days.',
      attachments: [{ filename: 'inv.txt', content: 'x' }],
    });
    const search = (query: string, key = o.owner.key) => ok(o.s, 'email.messages', { query }, key);
    const words = await search('overdue');
    expect(words.messages.map((m: any) => m.subject)).toEqual(['Overdue invoice']);
    expect(words.messages[0]).toMatchObject({ hasAttachments: true, unread: true, from: { address: 'bea@vendor.example', name: 'Bea' } });
    expect((await search('from:vendor.example')).messages).toHaveLength(1);
    expect((await search('from:vendor.example has:attachment invoice')).messages).toHaveLength(1);
    expect((await search('subject:pricing')).messages.map((m: any) => m.subject).sort()).toEqual(['Pricing', 'Re: Pricing']);
    expect((await search('from:nobody.example overdue')).messages).toEqual([]);
    expect((await search('in:inbox discount')).messages).toHaveLength(1);
    // The agent reads and marks read for itself: the owner's mail stays unread.
    const id = words.messages[0].id;
    await ok(o.s, 'email.markRead', { ids: [id] }, o.agent.key);
    expect((await search('is:unread overdue', o.agent.key)).messages).toEqual([]);
    expect((await search('is:read overdue', o.agent.key)).messages).toHaveLength(1);
    expect((await search('is:unread overdue')).messages).toHaveLength(1);
    expect((await search('before:2000-01-01')).messages).toEqual([]);
    expect((await search('after:2000-01-01 subject:overdue')).messages).toHaveLength(1);
    await refused(o.s, 'email.messages', { query: 'before:yesterday' }, 'BAD_REQUEST', { message: /^query: before: takes a date/ });
    // max is in the other mailbox only: none of these.
    expect((await search('overdue', o.max.key)).messages).toEqual([]);
    await refused(o.s, 'email.messages', { query: 'overdue', mailboxId: o.mailboxId }, 'NOT_FOUND', { key: o.max.key });
  });
});

describe('email.inbox and email.drafts', () => {
  it("the caller's Inbox across mailboxes: all, mine, unassigned, unread only", async () => {
    const t = await inbound(o, { subject: 'Assigned to mia' });
    await ok(o.s, 'email.delegate', { threadId: t.threadId, to: o.mia.id });
    const box2 = await deliver(o, { envelopeTo: [o.otherAddress], subject: 'For ops' });
    const all = await ok(o.s, 'email.inbox', { limit: 100 });
    const ids = all.threads.map((x: any) => x.id);
    expect(ids).toEqual(expect.arrayContaining([t.threadId, root.threadId, box2.messages[0].threadId]));
    const mine = await ok(o.s, 'email.inbox', { assignee: 'me' }, o.mia.key);
    expect(mine.threads.map((x: any) => x.id)).toEqual([t.threadId]);
    expect((await ok(o.s, 'email.inbox', { assignee: 'unassigned', limit: 100 }, o.mia.key)).threads.map((x: any) => x.id)).not.toContain(t.threadId);
    await ok(o.s, 'email.markRead', { ids: [t.threadId] }, o.mia.key);
    const unread = await ok(o.s, 'email.inbox', { unreadOnly: true, limit: 100 }, o.mia.key);
    expect(unread.threads.map((x: any) => x.id)).not.toContain(t.threadId);
    expect(unread.threads.map((x: any) => x.id)).toContain(root.threadId);
    // max sees only the other mailbox's.
    expect((await ok(o.s, 'email.inbox', { limit: 100 }, o.max.key)).threads.map((x: any) => x.id)).toEqual([box2.messages[0].threadId]);
  });

  it('drafts are shared in the mailbox, mine filters, collision marks another drafter on the thread', async () => {
    const a = await ok(o.s, 'email.draftSave', { replyToMessageId: root.messageId, text: 'Mia answers' }, o.mia.key);
    const b = await ok(o.s, 'email.draftSave', { replyToMessageId: root.messageId, text: 'Agent answers' }, o.agent.key);
    const lone = await newDraft(o, o.mia);
    const { drafts } = await ok(o.s, 'email.drafts', { mailboxId: o.mailboxId });
    const byId = new Map(drafts.map((d: any) => [d.id, d]));
    expect(byId.get(a.draft.id)).toMatchObject({ collision: true, note: null, state: 'draft' });
    expect(byId.get(b.draft.id)).toMatchObject({ collision: true });
    expect(byId.get(lone.id)).toMatchObject({ collision: false });
    const mine = await ok(o.s, 'email.drafts', { mine: true }, o.agent.key);
    expect(mine.drafts.map((d: any) => d.id)).toEqual([b.draft.id]);
    expect((await ok(o.s, 'email.drafts', {}, o.max.key)).drafts).toEqual([]);
    await refused(o.s, 'email.drafts', { mailboxId: o.mailboxId }, 'NOT_FOUND', { key: o.max.key });
  });

  it('no read appends an event', async () => {
    const before = await head(o.s);
    const reads: [string, object][] = [
      ['email.mailboxes', {}],
      ['email.threads', { mailboxId: o.mailboxId }],
      ['email.thread', { threadId: root.threadId }],
      ['email.message', { messageId: root.messageId }],
      ['email.messages', { query: 'pricing is:unread' }],
      ['email.inbox', {}],
      ['email.drafts', {}],
      ['email.signatures', {}],
    ];
    for (const [method, params] of reads) await ok(o.s, method, params, o.agent.key);
    expect(await head(o.s)).toBe(before);
  });

  it('reads need email.read (FORBIDDEN_SCOPE otherwise)', async () => {
    const board = (await o.s.client.mint({ scopes: ['org.read', 'board.read'], principalKind: 'human' }, 'board only')).apiKey;
    await refused(o.s, 'email.mailboxes', {}, 'FORBIDDEN_SCOPE', { key: board });
    await refused(o.s, 'email.draftSave', { mailboxId: o.mailboxId }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});
