import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { head, mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { expectError } from '../../helpers/frames.js';
import { sha256Hex } from '../../../protocol/hashing.js';
import { deliver, inbound, mailOrg, type MailOrg } from './kit.js';

/*
 * Each member's acts: read state per principal (markRead, markAllRead M,I), reactions, delegate and logDecision.
 * One event each, no-ops too; none of them changes what another member sees as read.
 */

let o: MailOrg;
beforeAll(async () => {
  o = await mailOrg();
});
afterAll(() => o.s.close());

const unreadOf = async (threadId: string, key: string) => (await ok(o.s, 'email.thread', { threadId }, key)).thread.unread;

describe('email.markRead', () => {
  it("marks messages or whole threads for the caller alone; again is a no-op; unread back; another's mail NOT_FOUND", async () => {
    const t = await inbound(o, { subject: 'Read me' });
    await inbound(o, { subject: 'Re: Read me', inReplyTo: `<${t.rfcId}>` });
    const { result, event } = await mutate(o.s, 'email.markRead', { ids: [t.threadId] }, 'email.message.mark_read', { key: o.agent.key });
    expect(result).toEqual({ updated: 2, changed: true });
    expect(event.payload).toEqual({ mailboxIds: [o.mailboxId], messages: 2, updated: 2, read: true });
    expect(await unreadOf(t.threadId, o.agent.key)).toBe(0);
    expect(await unreadOf(t.threadId, o.mia.key), "the agent's reading leaves mia's unread").toBe(2);
    const { result: again, event: noop } = await mutate(o.s, 'email.markRead', { ids: [t.messageId] }, 'email.message.mark_read', { key: o.agent.key });
    expect(again).toEqual({ updated: 0, changed: false });
    expect(noop.payload.noop).toBe(true);
    expect((await ok(o.s, 'email.markRead', { ids: [t.messageId], read: false }, o.agent.key)).updated).toBe(1);
    expect(await unreadOf(t.threadId, o.agent.key)).toBe(1);
    await refused(o.s, 'email.markRead', { ids: [t.messageId] }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.markRead', { ids: [] }, 'BAD_REQUEST', { message: /^ids: must list at least one id/ });
    await refused(o.s, 'email.markRead', { ids: ['fil_1'] }, 'BAD_REQUEST', { message: /^ids\.0: / });
    expectError(await (await otherOrg(o.s)).rpc('email.markRead', { ids: [t.threadId] }), 'NOT_FOUND');
  });
});

describe('email.markAllRead', () => {
  it('marks what arrived up to the call; later mail stays unread; replays by key; a non-member NOT_FOUND', async () => {
    const a = await inbound(o, { subject: 'All 1' });
    const { result } = await mutate(o.s, 'email.markAllRead', { mailboxId: o.mailboxId }, 'email.mailbox.mark_all_read', { key: o.mia.key, idem: 'all-1' });
    expect(result.changed).toBe(true);
    expect(result.updated).toBeGreaterThanOrEqual(1);
    expect(await unreadOf(a.threadId, o.mia.key)).toBe(0);
    const later = await inbound(o, { subject: 'All 2' });
    expect(await unreadOf(later.threadId, o.mia.key)).toBe(1);
    const before = await head(o.s);
    const replay = await o.s.client.rpc('email.markAllRead', { mailboxId: o.mailboxId }, { key: o.mia.key, idem: 'all-1' });
    expect(replay.body.result).toEqual(result);
    expect(await head(o.s)).toBe(before);
    const { result: past, event } = await mutate(
      o.s,
      'email.markAllRead',
      { mailboxId: o.mailboxId, before: '2000-01-01T00:00:00Z' },
      'email.mailbox.mark_all_read',
      {
        key: o.mia.key,
      },
    );
    expect(past).toMatchObject({ updated: 0, changed: false, before: '2000-01-01T00:00:00.000Z' });
    expect(event.payload).toEqual({ mailboxId: o.mailboxId, updated: 0, noop: true });
    await refused(o.s, 'email.markAllRead', { mailboxId: o.mailboxId }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.markAllRead', { mailboxId: o.mailboxId, before: 'yesterday' }, 'BAD_REQUEST', { message: /^before: / });
  });
});

describe('email.react', () => {
  it('sets and clears a reaction per member; the event has no emoji; bad emoji BAD_REQUEST', async () => {
    const t = await inbound(o, { subject: 'React' });
    const { result, event } = await mutate(o.s, 'email.react', { messageId: t.messageId, emoji: '👍' }, 'email.message.react', { key: o.mia.key });
    expect(result).toEqual({ reactions: [{ emoji: '👍', count: 1, mine: true }], changed: true });
    expect(JSON.stringify(event.payload)).not.toContain('👍');
    const owner = await ok(o.s, 'email.react', { messageId: t.messageId, emoji: '👍' });
    expect(owner.reactions).toEqual([{ emoji: '👍', count: 2, mine: true }]);
    const { result: same } = await mutate(o.s, 'email.react', { messageId: t.messageId, emoji: '👍' }, 'email.message.react', { key: o.mia.key });
    expect(same.changed).toBe(false);
    expect((await ok(o.s, 'email.react', { messageId: t.messageId, emoji: '👍', on: false }, o.mia.key)).reactions).toEqual([
      { emoji: '👍', count: 1, mine: false },
    ]);
    expect((await ok(o.s, 'email.react', { messageId: t.messageId, emoji: ':tada:' }, o.agent.key)).changed).toBe(true);
    await refused(o.s, 'email.react', { messageId: t.messageId, emoji: 'yes' }, 'BAD_REQUEST', { message: /^emoji: / });
    await refused(o.s, 'email.react', { messageId: t.messageId, emoji: '👍' }, 'NOT_FOUND', { key: o.max.key });
    const { message } = await ok(o.s, 'email.message', { messageId: t.messageId }, o.mia.key);
    expect(message.reactions).toEqual([
      { emoji: '👍', count: 1, mine: false },
      { emoji: ':tada:', count: 1, mine: false },
    ]);
  });
});

describe('email.delegate and email.logDecision', () => {
  it('assigns to a member, unassigns; a non-member is BAD_REQUEST; an agent cannot take a thread from a person', async () => {
    const t = await inbound(o, { subject: 'Who answers' });
    const { result, event } = await mutate(o.s, 'email.delegate', { threadId: t.threadId, to: o.agent.id }, 'email.thread.delegate', { key: o.mia.key });
    expect(result.thread.assigneeId).toBe(o.agent.id);
    expect(event.payload).toEqual({ mailboxId: o.mailboxId, threadId: t.threadId, to: o.agent.id, from: null });
    // The agent hands its own thread to mia; then may not take it back from her.
    expect((await ok(o.s, 'email.delegate', { threadId: t.threadId, to: o.mia.id }, o.agent.key)).thread.assigneeId).toBe(o.mia.id);
    await refused(o.s, 'email.delegate', { threadId: t.threadId, to: o.agent.id }, 'FORBIDDEN_SCOPE', {
      key: o.agent.key,
      message: /yours is agent/,
    });
    const { result: same } = await mutate(o.s, 'email.delegate', { threadId: t.threadId, to: o.mia.id }, 'email.thread.delegate', { key: o.mia.key });
    expect(same.changed).toBe(false);
    await refused(o.s, 'email.delegate', { threadId: t.threadId, to: o.max.id }, 'BAD_REQUEST', { message: /^to: .* is not a member of mailbox/ });
    expect((await ok(o.s, 'email.delegate', { threadId: t.threadId, to: null })).thread.assigneeId).toBeNull();
    await refused(o.s, 'email.delegate', { threadId: t.threadId, to: null }, 'NOT_FOUND', { key: o.max.key });
  });

  it('logs a decision: the text on the thread, only its SHA-256 in the event', async () => {
    const t = await inbound(o, { subject: 'Decide' });
    const text = 'Newsletter; nothing to answer.';
    const { result, event } = await mutate(o.s, 'email.logDecision', { threadId: t.threadId, kind: 'no_reply', text }, 'email.decision.log', {
      key: o.agent.key,
    });
    expect(result.decision).toMatchObject({ kind: 'no_reply', text, authorId: o.agent.id });
    expect(event.payload).toEqual({
      mailboxId: o.mailboxId,
      threadId: t.threadId,
      decisionId: result.decision.id,
      kind: 'no_reply',
      textSha256: sha256Hex(text),
    });
    expect((await ok(o.s, 'email.thread', { threadId: t.threadId })).decisions).toEqual([result.decision]);
    await refused(o.s, 'email.logDecision', { threadId: t.threadId, kind: 'maybe', text }, 'BAD_REQUEST', { message: /^kind: / });
    await refused(o.s, 'email.logDecision', { threadId: t.threadId, kind: 'note', text: '' }, 'BAD_REQUEST', { message: /^text: / });
    await refused(o.s, 'email.logDecision', { threadId: t.threadId, kind: 'note', text }, 'NOT_FOUND', { key: o.max.key });
  });
});

describe('event visibility', () => {
  it("a non-member sees none of a mailbox's events on GET /events; a member does", async () => {
    const before = await head(o.s);
    await deliver(o, { subject: 'Private' });
    const seen = async (key: string) => (await o.s.client.get('events', { cursor: before, limit: 100 }, { key })).body.events.map((e: any) => e.kind);
    expect(await seen(o.mia.key)).toEqual(['email.message.receive']);
    expect(await seen(o.max.key)).toEqual([]);
  });
});
