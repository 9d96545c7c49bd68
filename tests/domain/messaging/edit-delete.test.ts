import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../db/types.js';
import { approved, eventsAfter, head, mutate, ok, refused, rpc } from '../../helpers/calls.js';
import { channel, held, inSeconds, post, team, type Team, view } from './lifecycle-kit.js';

/* messaging.edit (revisions, re-read mentions, postAt while scheduled) and messaging.delete (the tombstone, the hold). */

let t: Team;
beforeAll(async () => {
  t = await team();
});
afterAll(() => t.s.close());

const revisionsOf = async (messageId: string, key: string) => (await ok(t.s, 'messaging.history', { messageId }, key)).revisions;

describe('messaging.edit', () => {
  it('the author edits: the old text becomes a revision, mentions are read again, editedAt is set; the event has no words', async () => {
    const m = await post(t, `first words <@${t.bob.id}>`);
    const { result, event } = await mutate(
      t.s,
      'messaging.edit',
      { messageId: m.id, text: `second words <@${t.owner.id}> <!channel>` },
      'messaging.message.edit',
      { key: t.alice.key },
    );
    expect(result.changed).toBe(true);
    expect(result.message).toMatchObject({ text: `second words <@${t.owner.id}> <!channel>`, mentions: [t.owner.id], mentionsChannel: true, seq: m.seq });
    expect(result.message.editedAt).not.toBeNull();
    expect(event.payload).toEqual({ channelId: t.channelId, messageId: m.id, status: 'posted', fields: ['text'], revisions: 1, mentions: 1 });
    expect(JSON.stringify(event)).not.toContain('words');
    expect(await revisionsOf(m.id, t.alice.key)).toEqual([expect.objectContaining({ n: 1, text: `first words <@${t.bob.id}>` })]);
    // Channel owners read revisions too; other members do not.
    expect(await revisionsOf(m.id, t.owner.key)).toHaveLength(1);
    expect(await revisionsOf(m.id, t.bob.key)).toBeNull();
  });

  it('the same text is changed:false with a noop event; no revision', async () => {
    const m = await post(t, 'unchanged');
    const { result, event } = await mutate(t.s, 'messaging.edit', { messageId: m.id, text: 'unchanged' }, 'messaging.message.edit', { key: t.alice.key });
    expect(result).toMatchObject({ changed: false, message: { editedAt: null } });
    expect(event.payload).toMatchObject({ noop: true, fields: [] });
    expect(await revisionsOf(m.id, t.alice.key)).toEqual([]);
  });

  it('keeps the last 50 revisions, dropping the oldest', async () => {
    const m = await post(t, 'v0');
    for (let i = 1; i <= 52; i++) await ok(t.s, 'messaging.edit', { messageId: m.id, text: `v${i}` }, t.alice.key);
    const revisions = await revisionsOf(m.id, t.alice.key);
    expect(revisions).toHaveLength(50);
    expect(revisions[0]).toMatchObject({ n: 3, text: 'v2' });
    expect(revisions[49]).toMatchObject({ n: 52, text: 'v51' });
  }, 30_000);

  it("refuses: another's message (CONFLICT), postAt on a posted message (CONFLICT), nothing to change, bad text or mention (BAD_REQUEST)", async () => {
    const m = await post(t, 'alice wrote this');
    expect(await refused(t.s, 'messaging.edit', { messageId: m.id, text: 'bob rewrites' }, 'CONFLICT', { key: t.bob.key })).toMatch(/only its author/);
    expect(await refused(t.s, 'messaging.edit', { messageId: m.id, text: 'owner rewrites' }, 'CONFLICT', { key: t.owner.key })).toMatch(/only its author/);
    expect(await refused(t.s, 'messaging.edit', { messageId: m.id, postAt: inSeconds(t, 600) }, 'CONFLICT', { key: t.alice.key })).toMatch(/already posted/);
    expect(await refused(t.s, 'messaging.edit', { messageId: m.id }, 'BAD_REQUEST', { key: t.alice.key })).toMatch(/^text: /);
    expect(await refused(t.s, 'messaging.edit', { messageId: m.id, text: '' }, 'BAD_REQUEST', { key: t.alice.key })).toMatch(/^text: /);
    expect(await refused(t.s, 'messaging.edit', { messageId: m.id, text: 'y'.repeat(16_001) }, 'BAD_REQUEST', { key: t.alice.key })).toMatch(/^text: /);
    expect(await refused(t.s, 'messaging.edit', { messageId: m.id, text: 'hi <@usr_nobody00000000>' }, 'BAD_REQUEST', { key: t.alice.key })).toMatch(
      /not a member/,
    );
    await refused(t.s, 'messaging.edit', { messageId: m.id, text: 'x' }, 'FORBIDDEN_SCOPE', { key: t.viewer.key });
    expect((await view(t, m.id)).text).toBe('alice wrote this');
  });

  it('a scheduled message: text replaced outright (a draft keeps no revisions), postAt moved with a new job', async () => {
    const s = (await ok(t.s, 'messaging.schedule', { channelId: t.channelId, idempotencyId: 'draft', text: 'draft 1', postAt: inSeconds(t, 600) }, t.alice.key))
      .message;
    const newAt = inSeconds(t, 1200);
    const { result, event } = await mutate(t.s, 'messaging.edit', { messageId: s.id, text: 'draft 2', postAt: newAt }, 'messaging.message.edit', {
      key: t.alice.key,
    });
    expect(result.message).toMatchObject({ status: 'scheduled', text: 'draft 2', editedAt: null });
    expect(new Date(result.message.postAt).getTime()).toBe(new Date(newAt).getTime());
    expect(event.payload).toMatchObject({ fields: ['text', 'postAt'], status: 'scheduled' });
    expect(await revisionsOf(s.id, t.alice.key)).toEqual([]);
    expect(await refused(t.s, 'messaging.edit', { messageId: s.id, postAt: inSeconds(t, 3) }, 'BAD_REQUEST', { key: t.alice.key })).toMatch(/^postAt: /);
    const { n } = one(await t.s.runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgboss.job WHERE data#>>'{data,messageId}' = $1`, [s.id]));
    expect(n).toBe(2);
  });
});

describe('messaging.delete', () => {
  it('the author deletes: a tombstone keeps id, seq and thread; text, revisions, reactions, pin, bookmarks and search are gone', async () => {
    const root = await post(t, 'thread root');
    const m = await post(t, 'zanzibar quokka secret', t.alice.key, t.channelId, { threadId: root.id });
    await ok(t.s, 'messaging.edit', { messageId: m.id, text: 'zanzibar quokka secret, edited' }, t.alice.key);
    await ok(t.s, 'messaging.react', { messageId: m.id, emoji: '👍' }, t.bob.key);
    await ok(t.s, 'messaging.pin', { messageId: m.id }, t.bob.key);
    const bkm = (await ok(t.s, 'messaging.bookmark', { channelId: t.channelId, title: 'that one', messageId: m.id }, t.bob.key)).bookmark;
    expect((await ok(t.s, 'messaging.history', { query: 'zanzibar quokka' })).messages.map((x: any) => x.id)).toEqual([m.id]);

    const { result, event } = await mutate(t.s, 'messaging.delete', { messageId: m.id }, 'messaging.message.delete', { key: t.alice.key });
    expect(result.changed).toBe(true);
    expect(result.message).toMatchObject({ id: m.id, seq: m.seq, threadId: root.id, status: 'deleted', text: null, reactions: [], pinned: false });
    expect(event.payload).toEqual({ channelId: t.channelId, messageId: m.id, seq: m.seq, authorId: t.alice.id, by: 'author', from: 'posted' });
    const db = t.s.runtime.db;
    const org = t.s.org.orgId;
    for (const table of ['message_revisions', 'message_reactions']) {
      expect(await db.query(`SELECT 1 FROM ${table} WHERE org_id = $1 AND message_id = $2`, [org, m.id]), table).toEqual([]);
    }
    expect(await db.query('SELECT 1 FROM channel_bookmarks WHERE org_id = $1 AND bookmark_id = $2', [org, bkm.id])).toEqual([]);
    expect((await ok(t.s, 'messaging.history', { query: 'zanzibar quokka' })).messages).toEqual([]);
    expect((await ok(t.s, 'messaging.history', { channelId: t.channelId, pinned: true })).messages.map((x: any) => x.id)).not.toContain(m.id);
    expect((await ok(t.s, 'messaging.history', { threadId: root.id })).messages.map((x: any) => x.id)).toContain(m.id);

    const again = await mutate(t.s, 'messaging.delete', { messageId: m.id }, 'messaging.message.delete', { key: t.alice.key });
    expect(again.result.changed).toBe(false);
    expect(again.event.payload).toMatchObject({ noop: true, from: 'deleted' });
    expect(await refused(t.s, 'messaging.edit', { messageId: m.id, text: 'revive' }, 'CONFLICT', { key: t.alice.key })).toMatch(/deleted/);
    expect(await refused(t.s, 'messaging.react', { messageId: m.id, emoji: '👍' }, 'CONFLICT', { key: t.bob.key })).toMatch(/deleted/);
  });

  it("a poll's delete erases its options and votes", async () => {
    const poll = (await ok(t.s, 'messaging.createPoll', { channelId: t.channelId, question: 'Lunch?', options: ['Pizza', 'Sushi'] }, t.bob.key)).message;
    await ok(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [poll.poll.options[0].id] }, t.alice.key);
    const deleted = (await ok(t.s, 'messaging.delete', { messageId: poll.id }, t.bob.key)).message;
    expect(deleted).toMatchObject({ status: 'deleted', text: null, poll: null });
    for (const table of ['message_poll_votes', 'message_poll_options', 'message_polls']) {
      expect(await t.s.runtime.db.query(`SELECT 1 FROM ${table} WHERE org_id = $1 AND message_id = $2`, [t.s.org.orgId, poll.id]), table).toEqual([]);
    }
    expect(await refused(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [] }, 'CONFLICT', { key: t.alice.key })).toMatch(/deleted/);
  });

  it("an owner or admin deletes others' messages; a plain member cannot (CONFLICT)", async () => {
    const m = await post(t, "bob's words", t.bob.key);
    expect(await refused(t.s, 'messaging.delete', { messageId: m.id }, 'CONFLICT', { key: t.alice.key })).toMatch(/only its author or an owner or admin/);
    const { event } = await mutate(t.s, 'messaging.delete', { messageId: m.id }, 'messaging.message.delete', { key: t.owner.key });
    expect(event.payload).toMatchObject({ by: 'manager', authorId: t.bob.id });
  });

  it("an agent erasing another's message holds until a human approves; its own deletes at once", async () => {
    const ch = await channel(t, 'agents', [t.alice.id, t.agent.id]);
    await ok(t.s, 'channel.updateMemberRole', { channelId: ch, principalId: t.agent.id, role: 'admin' });
    const own = await post(t, 'agent says', t.agent.key, ch);
    expect((await mutate(t.s, 'messaging.delete', { messageId: own.id }, 'messaging.message.delete', { key: t.agent.key })).result.changed).toBe(true);

    const m = await post(t, 'alice says', t.alice.key, ch);
    const approval = await held(t.s, 'messaging.delete', { messageId: m.id }, { key: t.agent.key });
    expect(approval).toMatchObject({ actionClass: 'messaging.delete', subject: { kind: 'messaging.signature', subjectId: m.id } });
    expect(JSON.stringify(approval)).not.toContain('alice says');
    expect((await view(t, m.id)).status).toBe('posted');
    const approvalId = await approved(t.s, approval, t.agent.key, t.owner.key);
    const { result, event } = await mutate(t.s, 'messaging.delete', { messageId: m.id, approvalId }, 'messaging.message.delete', { key: t.agent.key });
    expect(result.message.status).toBe('deleted');
    expect(event.payload).toMatchObject({ approvalId, by: 'manager' });
    // Already deleted: a no-op, no new hold.
    expect((await mutate(t.s, 'messaging.delete', { messageId: m.id }, 'messaging.message.delete', { key: t.agent.key })).result.changed).toBe(false);
  });

  it('an archived channel refuses deletes (CONFLICT); bad ids are BAD_REQUEST', async () => {
    const ch = await channel(t, 'archive-me', [t.alice.id]);
    const m = await post(t, 'frozen', t.alice.key, ch);
    await ok(t.s, 'channel.update', { channelId: ch, archived: true });
    expect(await refused(t.s, 'messaging.delete', { messageId: m.id }, 'CONFLICT', { key: t.alice.key })).toMatch(/archived/);
    expect(await refused(t.s, 'messaging.delete', { messageId: 'ch_wrongprefix000' }, 'BAD_REQUEST')).toMatch(/^messageId: /);
    const before = await head(t.s.client);
    const res = await rpc(t.s, 'messaging.delete', { messageId: m.id, approvalId: 'apr_nope' }, t.alice.key);
    expect(res.body.error.code).toBe('CONFLICT');
    expect(await eventsAfter(t.s.client, before)).toEqual([]);
  });
});
