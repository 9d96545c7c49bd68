import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, head, mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { expectError } from '../../helpers/frames.js';
import { deliver, folderRoles, inbound, mailOrg, type MailOrg, newDraft, folderOf } from './kit.js';

/*
 * Spam: DMARC failures and blocked senders land in Spam on arrival; email.reportSpam moves mail to Spam (blocking
 * its sender or domain when asked) or back to Inbox (lifting those blocks), a person's act only. The event names
 * senders' domains and counts, never an address.
 */

let o: MailOrg;
let folders: Record<string, string>;
beforeAll(async () => {
  o = await mailOrg();
  folders = await folderRoles(o);
});
afterAll(() => o.s.close());

let n = 0;
const tag = () => `s${Date.now().toString(36)}${++n}`;

describe('spam on arrival', () => {
  it('DMARC fail lands in Spam with its verdicts; pass and none land in Inbox', async () => {
    const before = await head(o.s);
    const spoof = await deliver(o, { from: 'ceo@bank.example', subject: 'Wire now', auth: { spf: 'fail', dkim: 'none', dmarc: 'fail' } });
    expect(spoof.messages[0]).toMatchObject({ folderId: folders.spam, spam: 'dmarc' });
    const [event] = await eventsAfter(o.s, before);
    expect(event.payload).toMatchObject({
      folderRole: 'spam',
      spam: 'dmarc',
      auth: { spf: 'fail', dkim: 'none', dmarc: 'fail' },
      senderDomain: 'bank.example',
    });
    expect((await deliver(o, { auth: { dmarc: 'pass' } })).messages[0].folderId).toBe(folders.inbox);
    expect((await deliver(o, { auth: { dmarc: 'none' } })).messages[0].folderId).toBe(folders.inbox);
    expect((await deliver(o, {})).messages[0].folderId).toBe(folders.inbox);
  });
});

describe('email.reportSpam', () => {
  it('moves to Spam and blocks the domain (and those under it); not spam moves back and lifts the block', async () => {
    const domain = `${tag()}.example`;
    const t = await inbound(o, { from: `Ann <ann@${domain}>`, subject: 'Offer' });
    const { result, event } = await mutate(o.s, 'email.reportSpam', { ids: [t.threadId], spam: true, block: 'domain' }, 'email.message.report_spam', {
      key: o.mia.key,
    });
    expect(result).toEqual({ moved: 1, blocked: 1, unblocked: 0, changed: true });
    expect(event.payload).toEqual({
      mailboxIds: [o.mailboxId],
      messages: 1,
      spam: true,
      block: 'domain',
      moved: 1,
      blocked: 1,
      unblocked: 0,
      senderDomains: [domain],
    });
    expect(JSON.stringify(event.payload)).not.toMatch(/ann@|Offer/);
    expect(await folderOf(o, t.messageId)).toBe(folders.spam);
    // Later mail from the domain, or one under it, lands in Spam; the other mailbox of the org is not affected.
    const later = await deliver(o, { from: `bob@mail.${domain}`, envelopeTo: [o.address, o.otherAddress] });
    const mine = later.messages.find((m) => m.mailboxId === o.mailboxId)!;
    expect(mine).toMatchObject({ folderId: folders.spam, spam: 'blocked' });
    expect(later.messages.find((m) => m.mailboxId === o.otherId)!.spam).toBeNull();
    // The same report again: a no-op with one event.
    const { result: again, event: noop } = await mutate(
      o.s,
      'email.reportSpam',
      { ids: [t.messageId], spam: true, block: 'domain' },
      'email.message.report_spam',
    );
    expect(again).toEqual({ moved: 0, blocked: 0, unblocked: 0, changed: false });
    expect(noop.payload.noop).toBe(true);
    // Not spam: back to Inbox, the block lifted (a block of the domain above the sender's too).
    const back = await ok(o.s, 'email.reportSpam', { ids: [mine.messageId], spam: false });
    expect(back).toEqual({ moved: 1, blocked: 0, unblocked: 1, changed: true });
    expect(await folderOf(o, mine.messageId)).toBe(folders.inbox);
    expect((await deliver(o, { from: `carl@${domain}` })).messages[0].folderId).toBe(folders.inbox);
  });

  it('block sender blocks that address only', async () => {
    const domain = `${tag()}.example`;
    const t = await inbound(o, { from: `spammer@${domain}` });
    expect((await ok(o.s, 'email.reportSpam', { ids: [t.messageId], spam: true, block: 'sender' })).blocked).toBe(1);
    expect((await deliver(o, { from: `Someone Else <SPAMMER@${domain}>` })).messages[0].spam).toBe('blocked');
    expect((await deliver(o, { from: `friend@${domain}` })).messages[0].spam).toBeNull();
  });

  it('agents may not; drafts and sent mail are not reported; block needs spam:true; other mailboxes NOT_FOUND', async () => {
    const t = await inbound(o, { subject: 'Agent sees' });
    const message = await refused(o.s, 'email.reportSpam', { ids: [t.messageId], spam: true }, 'FORBIDDEN_SCOPE', { key: o.agent.key });
    expect(message).toMatch(/^missing role owner or reviewer or member in this mailbox \(yours is agent\), needed to report mail as spam/);
    await refused(o.s, 'email.reportSpam', { ids: [t.messageId], spam: false }, 'FORBIDDEN_SCOPE', { key: o.agent.key, message: /^missing role / });
    const draft = await newDraft(o, o.mia);
    await refused(o.s, 'email.reportSpam', { ids: [draft.id], spam: true }, 'CONFLICT', { message: /is draft mail, not mail received/ });
    await refused(o.s, 'email.reportSpam', { ids: [t.messageId], spam: false, block: 'sender' }, 'BAD_REQUEST', { message: /^block: only with spam: true/ });
    await refused(o.s, 'email.reportSpam', { ids: ['bad'], spam: true }, 'BAD_REQUEST', { message: /^ids\.0: / });
    await refused(o.s, 'email.reportSpam', { ids: [t.messageId], spam: true }, 'NOT_FOUND', { key: o.max.key });
    expectError(await (await otherOrg(o.s)).rpc('email.reportSpam', { ids: [t.messageId], spam: true }), 'NOT_FOUND');
    expect(await folderOf(o, t.messageId)).toBe(folders.inbox);
  });
});
