import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { head, mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { expectError } from '../../helpers/frames.js';
import { inbound, mailOrg, newDraft, type MailOrg } from './kit.js';

/*
 * email.draftSave (M,I) and email.draftDiscard (M): a new draft or a reply (Re:, In-Reply-To, References, addressed
 * to the sender), saves as versions guarded by expectedVersion, the same content as a no-op with its one event, an
 * agent's hands on its own drafts only; discard of a draft, again as a no-op.
 */

let o: MailOrg;
beforeAll(async () => {
  o = await mailOrg();
});
afterAll(() => o.s.close());

describe('email.draftSave', () => {
  it('a new draft: in Drafts on a thread of its own, version 1, one event of ids and counts', async () => {
    const { result, event } = await mutate(
      o.s,
      'email.draftSave',
      { mailboxId: o.mailboxId, to: ['Ann Lee <Ann@Client.example>', 'bob@client.example'], cc: ['cy@client.example'], subject: 'Quote', text: 'Hi Ann' },
      'email.draft.save',
      { key: o.mia.key, entityId: (r) => r.draft.id },
    );
    expect(result.changed).toBe(true);
    expect(result.draft).toMatchObject({
      state: 'draft',
      version: 1,
      authorId: o.mia.id,
      from: null,
      to: [
        { address: 'ann@client.example', name: 'Ann Lee' },
        { address: 'bob@client.example', name: '' },
      ],
      subject: 'Quote',
      inReplyTo: null,
      references: [],
    });
    expect(result.draft.rfcMessageId).toMatch(/@acme\.example$/);
    expect(event.payload).toEqual({
      mailboxId: o.mailboxId,
      threadId: result.draft.threadId,
      messageId: result.draft.id,
      version: 1,
      recipients: 3,
      files: 0,
      isReply: false,
    });
    const { mailboxes } = await ok(o.s, 'email.mailboxes', {}, o.mia.key);
    const drafts = mailboxes[0].folders.find((f: any) => f.role === 'drafts');
    expect(result.draft.folderId).toBe(drafts.id);
    expect(drafts.threads).toBeGreaterThanOrEqual(1);
  });

  it('a reply: Re: subject, In-Reply-To, References, addressed to the sender; on the original thread', async () => {
    const first = await inbound(o, { subject: 'Pricing', messageId: '<p-1@client.example>' });
    const second = await inbound(o, {
      subject: 'Re: Pricing',
      messageId: '<p-2@client.example>',
      inReplyTo: '<p-1@client.example>',
      references: ['<p-1@client.example>'],
    });
    const { result } = await mutate(o.s, 'email.draftSave', { replyToMessageId: second.messageId, text: 'Ten dollars.' }, 'email.draft.save', {
      key: o.agent.key,
    });
    expect(result.draft).toMatchObject({
      threadId: first.threadId,
      subject: 'Re: Pricing',
      inReplyTo: 'p-2@client.example',
      references: ['p-1@client.example', 'p-2@client.example'],
      to: [{ address: 'ann@client.example', name: 'Ann Lee' }],
      replyToMessageId: second.messageId,
    });
    const plain = await ok(o.s, 'email.draftSave', { replyToMessageId: first.messageId, subject: 'Other words', to: ['z@client.example'] });
    expect(plain.draft).toMatchObject({ subject: 'Other words', to: [{ address: 'z@client.example', name: '' }], inReplyTo: 'p-1@client.example' });
  });

  it('saves again as versions; the same content is changed:false with a noop event; a stale version is CONFLICT', async () => {
    const draft = await newDraft(o, o.mia);
    const { result: saved } = await mutate(o.s, 'email.draftSave', { draftId: draft.id, text: 'Hi Ann, updated', expectedVersion: 1 }, 'email.draft.save', {
      key: o.mia.key,
    });
    expect(saved).toMatchObject({ changed: true, draft: { version: 2, text: 'Hi Ann, updated', subject: 'Quote' } });
    const { result: same, event } = await mutate(o.s, 'email.draftSave', { draftId: draft.id, text: 'Hi Ann, updated' }, 'email.draft.save', {
      key: o.mia.key,
    });
    expect(same).toMatchObject({ changed: false, draft: { version: 2 } });
    expect(event.payload.noop).toBe(true);
    await refused(o.s, 'email.draftSave', { draftId: draft.id, text: 'late edit', expectedVersion: 1 }, 'CONFLICT', {
      key: o.mia.key,
      message: /is at version 2, not 1/,
    });
    // A human of the mailbox may save another's draft (shared drafts); the agent may not.
    expect((await ok(o.s, 'email.draftSave', { draftId: draft.id, subject: 'Quote v3' })).draft.version).toBe(3);
    await refused(o.s, 'email.draftSave', { draftId: draft.id, text: 'agent' }, 'FORBIDDEN_SCOPE', {
      key: o.agent.key,
      message: /yours is agent/,
    });
  });

  it('the idempotency key replays the first answer', async () => {
    const params = { mailboxId: o.mailboxId, subject: 'Once', to: ['ann@client.example'] };
    const first = await mutate(o.s, 'email.draftSave', params, 'email.draft.save', { key: o.mia.key, idem: 'draft-once-1' });
    const before = await head(o.s);
    const again = await o.s.client.rpc('email.draftSave', params, { key: o.mia.key, idem: 'draft-once-1' });
    expect(again.body.ok).toBe(true);
    expect(again.body.result.draft.id).toBe(first.result.draft.id);
    expect(await head(o.s)).toBe(before);
  });

  it('bad fields are BAD_REQUEST naming them; other mailboxes and orgs NOT_FOUND; not a draft CONFLICT', async () => {
    await refused(o.s, 'email.draftSave', { mailboxId: o.mailboxId, to: ['not an address'] }, 'BAD_REQUEST', {
      message: 'to.0: must be an email address',
    });
    await refused(o.s, 'email.draftSave', { mailboxId: o.mailboxId, body: 'x' }, 'BAD_REQUEST', { message: /body/ });
    const many = Array.from({ length: 101 }, (_, i) => `r${i}@client.example`);
    await refused(o.s, 'email.draftSave', { mailboxId: o.mailboxId, to: many }, 'BAD_REQUEST', { message: /^to: must list at most 100 recipients/ });
    await refused(o.s, 'email.draftSave', { mailboxId: o.mailboxId, to: many.slice(0, 60), cc: many.slice(60, 101) }, 'BAD_REQUEST', {
      message: /^to: at most 100/,
    });
    await refused(o.s, 'email.draftSave', { text: 'x' }, 'BAD_REQUEST', { message: /^mailboxId: / });
    await refused(o.s, 'email.draftSave', { mailboxId: o.mailboxId, expectedVersion: 2 }, 'BAD_REQUEST', { message: /^expectedVersion: / });
    await refused(o.s, 'email.draftSave', { mailboxId: o.mailboxId }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.draftSave', { mailboxId: o.mailboxId, fileIds: ['fil_nothere'] }, 'NOT_FOUND', { key: o.mia.key });
    const received = await inbound(o, { subject: 'Not a draft' });
    await refused(o.s, 'email.draftSave', { draftId: received.messageId, text: 'x' }, 'CONFLICT', { message: /is received, not a draft/ });
    await refused(o.s, 'email.draftSave', { replyToMessageId: received.messageId, mailboxId: o.otherId }, 'BAD_REQUEST', {
      message: /^replyToMessageId: /,
    });
    const other = await otherOrg(o.s);
    expectError(await other.rpc('email.draftSave', { mailboxId: o.mailboxId }), 'NOT_FOUND');
  });
});

describe('email.draftDiscard', () => {
  it('discards a draft (its draft-only thread leaves the lists); again is a no-op; received mail CONFLICT; the agent only its own', async () => {
    const draft = await newDraft(o, o.mia, { subject: 'To discard' });
    const { result } = await mutate(o.s, 'email.draftDiscard', { draftId: draft.id }, 'email.draft.discard', { key: o.mia.key });
    expect(result).toMatchObject({ changed: true, draft: { state: 'discarded' } });
    expect((await ok(o.s, 'email.drafts', { mailboxId: o.mailboxId })).drafts.map((d: any) => d.id)).not.toContain(draft.id);
    const { result: again, event } = await mutate(o.s, 'email.draftDiscard', { draftId: draft.id }, 'email.draft.discard', { key: o.mia.key });
    expect(again.changed).toBe(false);
    expect(event.payload).toMatchObject({ noop: true, messageId: draft.id });
    await refused(o.s, 'email.draftSave', { draftId: draft.id, text: 'back?' }, 'CONFLICT');
    const received = await inbound(o, { subject: 'Keep' });
    await refused(o.s, 'email.draftDiscard', { draftId: received.messageId }, 'CONFLICT', { message: /is received, not a draft/ });
    const mine = await newDraft(o, o.mia);
    await refused(o.s, 'email.draftDiscard', { draftId: mine.id }, 'FORBIDDEN_SCOPE', { key: o.agent.key });
    await refused(o.s, 'email.draftDiscard', { draftId: mine.id }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.draftDiscard', { draftId: 'eml_unknown' }, 'NOT_FOUND');
    const agents = await newDraft(o, o.agent);
    expect((await ok(o.s, 'email.draftDiscard', { draftId: agents.id }, o.agent.key)).changed).toBe(true);
  });
});
