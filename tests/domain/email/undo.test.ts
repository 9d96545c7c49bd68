import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, ok, refused } from '../../helpers/calls.js';
import { arrive, messageAs, sendWorld, submissionOf, type SendWorld } from './send-kit.js';

/*
 * email.undoSend (M) and email.holdReplies (M,I): taking mail back inside its undo window or out of review, and a
 * hold that makes agents' mail wait for a human, pulling their scheduled sends back. No worker runs here, so a
 * submission stays in its window; after release is tests/domain/email/scenarios-sending.test.ts.
 */

let w: SendWorld;
beforeAll(async () => {
  w = await sendWorld({ workers: false });
});
afterAll(() => w.close());

const send = (params: Record<string, unknown>, by = w.owner) =>
  ok(w.s, 'email.send', { mailboxId: w.mailboxId, subject: `Note ${Math.random()}`, text: 'Words', ...params }, by.key);

describe('email.undoSend', () => {
  it('inside the window: the submission is canceled and the message is a draft again; again is a no-op', async () => {
    const sent = await send({ to: ['ann@client.example'], undoSeconds: 60 });
    const { result, event } = await mutate(w.s, 'email.undoSend', { messageId: sent.message.id }, 'email.submission.cancel', { key: w.owner.key });
    expect(result).toMatchObject({ canceled: 'submission', changed: true, message: { id: sent.message.id, state: 'draft' } });
    expect(event.payload).toEqual({
      mailboxId: w.mailboxId,
      threadId: sent.message.threadId,
      messageId: sent.message.id,
      canceled: 'submission',
      submissionId: sent.submission.id,
      approvalId: null,
      state: 'draft',
    });
    expect(await submissionOf(w, sent.message.id)).toMatchObject({ undo_status: 'canceled', delivery: null });
    const { mailboxes } = await ok(w.s, 'email.mailboxes', {}, w.owner.key);
    const drafts = mailboxes.find((m: any) => m.id === w.mailboxId).folders.find((f: any) => f.role === 'drafts');
    expect(result.message.folderId).toBe(drafts.id);
    // A draft again: edited and sent again.
    await ok(w.s, 'email.draftSave', { draftId: sent.message.id, text: 'Better words' }, w.owner.key);
    expect((await ok(w.s, 'email.draftSend', { draftId: sent.message.id }, w.owner.key)).status).toBe('scheduled');
    const draft = (await ok(w.s, 'email.draftSave', { mailboxId: w.mailboxId, subject: 'never sent' }, w.owner.key)).draft;
    const noop = await mutate(w.s, 'email.undoSend', { messageId: draft.id }, 'email.submission.cancel', { key: w.owner.key });
    expect(noop.result).toMatchObject({ canceled: null, changed: false });
    expect(noop.event.payload.noop).toBe(true);
  });

  it('a held message: its review is withdrawn (the approval too) and it is a draft the agent may edit', async () => {
    const held = await send({ to: ['ann@client.example'] }, w.agent);
    const { result, event } = await mutate(w.s, 'email.undoSend', { messageId: held.message.id }, 'email.submission.cancel', { key: w.agent.key });
    expect(result).toMatchObject({ canceled: 'review', message: { state: 'draft' } });
    expect(event.payload).toMatchObject({ canceled: 'review', approvalId: held.review.approvalId, submissionId: null });
    expect(await ok(w.s, 'approval.get', { approvalId: held.review.approvalId })).toMatchObject({ status: 'withdrawn', decidedBy: w.agent.id });
    expect((await ok(w.s, 'approval.list', { status: 'withdrawn' })).approvals.map((a: any) => a.approvalId)).toContain(held.review.approvalId);
    const { reviews } = await ok(w.s, 'email.approvals', { status: 'withdrawn' }, w.agent.key);
    expect(reviews.map((r: any) => r.approvalId)).toContain(held.review.approvalId);
    await ok(w.s, 'email.draftSave', { draftId: held.message.id, text: 'revised' }, w.agent.key);
    // Withdrawn is not decided: approving it now is CONFLICT.
    await refused(w.s, 'email.approve', { approvalId: held.review.approvalId }, 'CONFLICT', { key: w.mia.key, message: /is withdrawn by its author/ });
  });

  it('who takes back: the author, or an owner or reviewer; another agent or a member is refused; received mail is CONFLICT', async () => {
    const mine = await send({ to: [w.opsAddress] }, w.agent);
    await refused(w.s, 'email.undoSend', { messageId: mine.message.id }, 'FORBIDDEN_SCOPE', {
      key: w.max.key,
      message: "missing role owner or reviewer in this mailbox (yours is member), needed to take back another member's mail",
    });
    expect((await ok(w.s, 'email.undoSend', { messageId: mine.message.id }, w.mia.key)).canceled).toBe('submission');
    await refused(w.s, 'email.undoSend', { messageId: mine.message.id }, 'NOT_FOUND', { key: w.stranger.key });
    const got = await arrive(w);
    await refused(w.s, 'email.undoSend', { messageId: got.messageId }, 'CONFLICT', { message: /was received, not sent: there is nothing to take back/ });
  });
});

describe('email.holdReplies', () => {
  it("a thread hold pulls the agent's scheduled reply back into review; the agent cannot lift it; a human can", async () => {
    const got = await arrive(w, { subject: 'Contract' });
    const reply = await ok(w.s, 'email.send', { replyToMessageId: got.messageId, to: [w.opsAddress], text: 'Signed', undoSeconds: 120 }, w.agent.key);
    expect(reply.status).toBe('scheduled');
    const humanReply = await ok(w.s, 'email.send', { replyToMessageId: got.messageId, to: [w.opsAddress], text: 'Also', undoSeconds: 120 }, w.owner.key);
    // An agent may place a hold (it only makes mail wait).
    const { result, event } = await mutate(w.s, 'email.holdReplies', { threadId: got.threadId, hold: true }, 'email.hold.set', { key: w.agent.key });
    expect(result).toEqual({ mailboxId: w.mailboxId, threadId: got.threadId, hold: true, until: null, pulledBack: [reply.message.id], changed: true });
    expect(event.payload).toMatchObject({ hold: true, pulledBack: 1, messageIds: [reply.message.id] });
    expect(await submissionOf(w, reply.message.id)).toMatchObject({ undo_status: 'canceled' });
    expect((await messageAs(w, reply.message.id, w.agent)).state).toBe('held');
    expect((await messageAs(w, humanReply.message.id, w.owner)).state).toBe('scheduled');
    const { reviews } = await ok(w.s, 'email.approvals', { mailboxId: w.mailboxId }, w.mia.key);
    const pulled = reviews.find((r: any) => r.messageId === reply.message.id);
    expect(pulled.reasons).toEqual([{ code: 'thread_hold', text: 'agent replies on this thread were put on hold while it waited to leave' }]);
    // New agent mail on the thread is held while the hold lasts.
    const next = await ok(w.s, 'email.send', { replyToMessageId: got.messageId, to: [w.opsAddress], text: 'Again' }, w.agent.key);
    expect(next.review.reasons.map((r: any) => r.code)).toEqual(['thread_hold']);
    // Holding again: a no-op. Lifting: a human's act.
    expect((await mutate(w.s, 'email.holdReplies', { threadId: got.threadId, hold: true }, 'email.hold.set', { key: w.agent.key })).result.changed).toBe(false);
    await refused(w.s, 'email.holdReplies', { threadId: got.threadId, hold: false }, 'FORBIDDEN_SCOPE', {
      key: w.agent.key,
      message: 'missing role owner or reviewer or member in this mailbox (yours is agent), needed to lift a hold on agent mail (agents may place one)',
    });
    expect((await ok(w.s, 'email.holdReplies', { threadId: got.threadId, hold: false }, w.max.key)).changed).toBe(true);
    const after = await ok(w.s, 'email.send', { replyToMessageId: got.messageId, to: [w.opsAddress], text: 'Lifted' }, w.agent.key);
    expect(after.status).toBe('scheduled');
  });

  it('a mailbox hold until a time: agent mail waits until then, saying so', async () => {
    const until = new Date(Date.now() + 3600_000).toISOString();
    const r = await ok(w.s, 'email.holdReplies', { mailboxId: w.mailboxId, hold: true, until }, w.owner.key);
    expect(r).toMatchObject({ threadId: null, hold: true, until, changed: true });
    try {
      const held = await send({ to: [w.opsAddress] }, w.agent);
      expect(held.review.reasons).toEqual([{ code: 'mailbox_hold', text: `agent mail from this mailbox is on hold until ${until}` }]);
      const mailbox = (await ok(w.s, 'email.mailboxes', {}, w.agent.key)).mailboxes.find((m: any) => m.id === w.mailboxId);
      expect(mailbox.hold).toBe(true);
    } finally {
      await ok(w.s, 'email.holdReplies', { mailboxId: w.mailboxId, hold: false }, w.owner.key);
    }
  });

  it("bad input: both or neither target, until in the past or without hold, another mailbox's thread", async () => {
    const got = await arrive(w);
    await refused(w.s, 'email.holdReplies', { mailboxId: w.mailboxId, threadId: got.threadId, hold: true }, 'BAD_REQUEST', {
      message: 'mailboxId: give mailboxId (the whole mailbox) or threadId (one thread), not both',
    });
    await refused(w.s, 'email.holdReplies', { hold: true }, 'BAD_REQUEST', { message: /^mailboxId: give mailboxId/ });
    await refused(w.s, 'email.holdReplies', { threadId: got.threadId, hold: true, until: '2020-01-01T00:00:00Z' }, 'BAD_REQUEST', {
      message: /^until: must be in the future/,
    });
    await refused(w.s, 'email.holdReplies', { threadId: got.threadId, hold: false, until: new Date(Date.now() + 60_000).toISOString() }, 'BAD_REQUEST', {
      message: 'until: only with hold: true (when the hold ends by itself)',
    });
    await refused(w.s, 'email.holdReplies', { threadId: got.threadId, hold: true }, 'NOT_FOUND', {
      key: w.stranger.key,
      message: `thread ${got.threadId} not found`,
    });
  });
});
