import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiveError, receiveMessage } from '../../../domain/email/index.js';
import { eventsAfter, head, ok } from '../../helpers/calls.js';
import { deliver, inbound, mailOrg, mime, type MailOrg } from './kit.js';

/*
 * receiveMessage, as the SMTP listener will call it: real MIME in; one message row per recipient mailbox over one
 * stored blob; threads by Message-ID, In-Reply-To and References, by subject only for a header-less Re:; one
 * system event per mailbox row with ids, counts and the sender's domain; 550 and 552 as typed errors.
 */

let o: MailOrg;
beforeAll(async () => {
  o = await mailOrg();
});
afterAll(() => o.s.close());

describe('receiveMessage', () => {
  it('stores the message in Inbox with its parts, attachments and verdicts, and appends one system event', async () => {
    const before = await head(o.s);
    const got = await deliver(o, {
      from: 'Ann Lee <Ann@Client.Example>',
      cc: 'bob@client.example',
      subject: 'Quote for March',
      text: 'Hi, can you send the quote?',
      html: '<p>Hi, can you send the <b>quote</b>?</p>',
      messageId: '<q-1@client.example>',
      attachments: [{ filename: 'brief.txt', content: 'the brief' }],
      auth: { spf: 'pass', dkim: 'pass', dmarc: 'pass' },
    });
    expect(got.unknown).toEqual([]);
    expect(got.messages).toHaveLength(1);
    const { message } = await ok(o.s, 'email.message', { messageId: got.messages[0].messageId });
    expect(message).toMatchObject({
      state: 'received',
      rfcMessageId: 'q-1@client.example',
      from: { address: 'ann@client.example', name: 'Ann Lee' },
      cc: [{ address: 'bob@client.example', name: '' }],
      subject: 'Quote for March',
      auth: { spf: 'pass', dkim: 'pass', dmarc: 'pass' },
      unread: true,
      authorId: null,
    });
    expect(message.text).toContain('can you send the quote');
    expect(message.html).toContain('<b>quote</b>');
    expect(message.attachments).toEqual([expect.objectContaining({ filename: 'brief.txt', size: 9, inline: false })]);
    const inbox = (await ok(o.s, 'email.mailboxes', {})).mailboxes.find((m: any) => m.id === o.mailboxId).folders.find((f: any) => f.role === 'inbox');
    expect(message.folderId).toBe(inbox.id);
    const events = await eventsAfter(o.s, before);
    expect(events.map((e) => [e.kind, e.actor])).toEqual([['email.message.receive', '']]);
    expect(events[0].payload).toMatchObject({
      mailboxId: o.mailboxId,
      messageId: message.id,
      senderDomain: 'client.example',
      attachmentCount: 1,
      newThread: true,
    });
    expect(JSON.stringify(events[0])).not.toMatch(/ann@|Quote|brief\.txt|send the/i);
  });

  it('one message to two mailboxes is two rows over one blob, each threaded in its own mailbox', async () => {
    const before = await head(o.s);
    const got = await deliver(o, { envelopeTo: [o.address, o.otherAddress, 'nobody@acme.example'], subject: 'Both', messageId: '<both-1@client.example>' });
    expect(got.messages.map((m) => m.mailboxId).sort()).toEqual([o.mailboxId, o.otherId].sort());
    expect(got.unknown).toEqual(['nobody@acme.example']);
    expect(new Set(got.messages.map((m) => m.threadId)).size).toBe(2);
    const holders = await o.s.runtime.db.query<{ holder: string }>('SELECT holder FROM blob_refs WHERE org_id = $1 AND sha256 = $2 ORDER BY holder', [
      o.s.org.orgId,
      got.sha256,
    ]);
    expect(holders.map((h) => h.holder).sort()).toEqual(got.messages.map((m) => m.messageId).sort());
    expect((await eventsAfter(o.s, before)).map((e) => e.kind)).toEqual(['email.message.receive', 'email.message.receive']);
    // The same bytes again (a relay's retry) are kept once.
    const raw = await mime({ to: o.address, subject: 'Again', messageId: '<again-1@client.example>' });
    const first = await receiveMessage(o.s.runtime.deps, { orgId: o.s.org.orgId, raw, envelope: { from: 'x@client.example', to: [o.address] } });
    const second = await receiveMessage(o.s.runtime.deps, { orgId: o.s.org.orgId, raw, envelope: { from: 'x@client.example', to: [o.address] } });
    expect(first.messages).toHaveLength(1);
    expect(second.messages).toHaveLength(0);
  });

  it('threads replies by In-Reply-To and References; a header-less Re: by subject and sender; other same-subject mail apart', async () => {
    const root = await inbound(o, { subject: 'Invoice 42', messageId: '<inv-42@client.example>' });
    const reply = await inbound(o, { subject: 'Re: Invoice 42', inReplyTo: '<inv-42@client.example>', references: ['<inv-42@client.example>'] });
    expect(reply.threadId).toBe(root.threadId);
    const byRefs = await inbound(o, { subject: 'something else', references: ['<unknown@x>', '<inv-42@client.example>'] });
    expect(byRefs.threadId).toBe(root.threadId);
    // No headers, Re:, the same sender: the subject fallback.
    const bare = await mime({ to: o.address, subject: 'RE: invoice 42', text: 'paid' });
    const stripped = Buffer.from(bare.toString('utf8').replace(/^(In-Reply-To|References):.*\r\n/gim, ''));
    const fallback = await receiveMessage(o.s.runtime.deps, { orgId: o.s.org.orgId, raw: stripped, envelope: { from: 'a@client.example', to: [o.address] } });
    expect(fallback.messages[0].threadId).toBe(root.threadId);
    // The same subject without Re:, or Re: from someone never on the thread: new threads.
    expect((await inbound(o, { subject: 'Invoice 42' })).threadId).not.toBe(root.threadId);
    expect((await inbound(o, { from: 'eve@elsewhere.example', subject: 'Re: Invoice 42' })).threadId).not.toBe(root.threadId);
    // Headers naming mail this mailbox does not have: a new thread, never the subject.
    expect((await inbound(o, { subject: 'Re: Invoice 42', inReplyTo: '<not-here@x>' })).threadId).not.toBe(root.threadId);
    const { thread } = await ok(o.s, 'email.thread', { threadId: root.threadId });
    expect(thread.messageCount).toBe(4);
    expect(thread.participants).toContain('ann@client.example');
  });

  it('no mailbox for any recipient: a 550 ReceiveError; over 25 MB: 552; nothing stored or appended', async () => {
    const before = await head(o.s);
    const raw = await mime({ to: 'nobody@acme.example' });
    const refused = await receiveMessage(o.s.runtime.deps, { orgId: o.s.org.orgId, raw, envelope: { from: 'a@b.example', to: ['nobody@acme.example'] } }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ReceiveError);
    expect(refused).toMatchObject({ reason: 'no_mailbox', smtpCode: 550 });
    const big = Buffer.alloc(25 * 1024 * 1024 + 1, 0x61);
    const tooBig = await receiveMessage(o.s.runtime.deps, { orgId: o.s.org.orgId, raw: big, envelope: { from: 'a@b.example', to: [o.address] } }).catch(
      (e: unknown) => e,
    );
    expect(tooBig).toMatchObject({ reason: 'too_large', smtpCode: 552 });
    // Another org's mailbox address is not this org's.
    const other = await receiveMessage(o.s.runtime.deps, {
      orgId: o.s.org.orgId,
      raw,
      envelope: { from: 'a@b.example', to: ['sales@elsewhere.example'] },
    }).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(ReceiveError);
    expect(await head(o.s)).toBe(before);
  });
});
