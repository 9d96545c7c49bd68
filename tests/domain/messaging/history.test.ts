import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { head, otherOrg, refused } from '../../helpers/calls.js';
import { history, msgOrg, newChannel, say, type MsgOrg } from './core-kit.js';

/* messaging.history: every mode, paging, tombstones, long-polling, access; no event. */

let o: MsgOrg;
let ch: any;
const seqs = (r: any) => r.messages.map((m: any) => m.seq);

beforeAll(async () => {
  o = await msgOrg();
  ch = await newChannel(o, { members: [o.mia, o.max] });
  for (let i = 1; i <= 12; i++) await say(o, i % 2 ? o.mia : o.owner, ch.id, `message number ${i}`);
}, 60_000);
afterAll(() => o.s.close());

describe('messaging.history by channel', () => {
  it('newest first, paged by cursor with no gap or repeat; before; after oldest first; around; no event', async () => {
    const before = await head(o.s.client);
    const first = await history(o, { channelId: ch.id, limit: 5 });
    expect(seqs(first)).toEqual([12, 11, 10, 9, 8]);
    expect(first.lastSeq).toBe(12);
    const second = await history(o, { channelId: ch.id, limit: 5, cursor: first.nextCursor });
    const third = await history(o, { channelId: ch.id, limit: 5, cursor: second.nextCursor });
    expect([...seqs(second), ...seqs(third)]).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(third.nextCursor).toBeNull();
    expect(seqs(await history(o, { channelId: ch.id, before: 4 }))).toEqual([3, 2, 1]);
    const up = await history(o, { channelId: ch.id, after: 8, limit: 3 });
    expect(seqs(up)).toEqual([9, 10, 11]);
    expect(seqs(await history(o, { channelId: ch.id, cursor: up.nextCursor }))).toEqual([12]);
    expect(seqs(await history(o, { channelId: ch.id, around: 6, limit: 4 }))).toEqual([8, 7, 6, 5]);
    expect(await head(o.s.client)).toBe(before);
  });

  it('thread replies stay out of the channel unless also sent to it; a deleted message is a tombstone', async () => {
    const c2 = await newChannel(o, { members: [o.mia] });
    const root = await say(o, o.owner, c2.id, 'root words');
    await say(o, o.mia, c2.id, 'quiet reply', { threadId: root.id });
    await say(o, o.mia, c2.id, 'loud reply', { threadId: root.id, alsoToChannel: true });
    expect(seqs(await history(o, { channelId: c2.id }))).toEqual([3, 1]);
    await o.s.runtime.db.query(
      `UPDATE messages SET status = 'deleted', text = NULL, deleted_at = now(), deleted_by = author_id WHERE org_id = $1 AND message_id = $2`,
      [o.s.org.orgId, root.id],
    );
    const [, tomb] = (await history(o, { channelId: c2.id })).messages;
    expect(tomb).toMatchObject({ id: root.id, seq: 1, status: 'deleted', text: null, replyCount: 2 });
  });

  it('thread: the root then its replies oldest first, paged', async () => {
    const c3 = await newChannel(o, { members: [o.mia] });
    const root = await say(o, o.owner, c3.id, 'thread root');
    await say(o, o.owner, c3.id, 'unrelated');
    for (let i = 0; i < 4; i++) await say(o, o.mia, c3.id, `reply ${i}`, { threadId: root.id });
    const page = await history(o, { threadId: root.id, limit: 3 }, o.mia);
    expect(page.messages.map((m: any) => m.text)).toEqual(['thread root', 'reply 0', 'reply 1']);
    expect((await history(o, { threadId: root.id, cursor: page.nextCursor }, o.mia)).messages.map((m: any) => m.text)).toEqual(['reply 2', 'reply 3']);
  });

  it("messageId: the message; its revisions for its author and the channel's owners and admins only", async () => {
    const m = await say(o, o.mia, ch.id, 'edited text');
    await o.s.runtime.db.query(`INSERT INTO message_revisions (org_id, message_id, n, text, replaced_at) VALUES ($1, $2, 1, 'first text', now())`, [
      o.s.org.orgId,
      m.id,
    ]);
    expect((await history(o, { messageId: m.id }, o.mia)).revisions).toEqual([{ n: 1, text: 'first text', replacedAt: expect.any(String) }]);
    expect((await history(o, { messageId: m.id }, o.owner)).revisions).toHaveLength(1);
    const seen = await history(o, { messageId: m.id }, o.max);
    expect(seen.revisions).toBeNull();
    expect(seen.messages[0].text).toBe('edited text');
  });

  it('pins, bookmarks and your own scheduled messages', async () => {
    const c4 = await newChannel(o, { members: [o.mia] });
    const a = await say(o, o.owner, c4.id, 'pin me');
    const b = await say(o, o.owner, c4.id, 'pin me too');
    const q = (sql: string, args: unknown[]) => o.s.runtime.db.query(sql, [o.s.org.orgId, ...args]);
    await q(`UPDATE messages SET pinned_at = now() - interval '1 minute', pinned_by = author_id WHERE org_id = $1 AND message_id = $2`, [a.id]);
    await q(`UPDATE messages SET pinned_at = now(), pinned_by = author_id WHERE org_id = $1 AND message_id = $2`, [b.id]);
    const pins = await history(o, { channelId: c4.id, pinned: true, limit: 1 }, o.mia);
    expect(pins.messages.map((m: any) => m.id)).toEqual([b.id]);
    expect(pins.messages[0].pinned).toBe(true);
    expect((await history(o, { channelId: c4.id, pinned: true, cursor: pins.nextCursor }, o.mia)).messages.map((m: any) => m.id)).toEqual([a.id]);
    await q(
      `INSERT INTO channel_bookmarks (org_id, bookmark_id, channel_id, title, url, created_by, created_at) VALUES ($1, 'bkm_one1', $2, 'Runbook', 'https://x.test/rb', $3, now())`,
      [c4.id, o.owner.id],
    );
    const marks = await history(o, { channelId: c4.id, bookmarks: true }, o.mia);
    expect(marks).toMatchObject({ messages: [], bookmarks: [{ id: 'bkm_one1', title: 'Runbook', url: 'https://x.test/rb', messageId: null, fileId: null }] });
    await q(
      `INSERT INTO messages (org_id, message_id, channel_id, author_id, status, text, post_at, created_at) VALUES ($1, 'msg_sched1', $2, $3, 'scheduled', 'later', now() + interval '1 hour', now())`,
      [c4.id, o.mia.id],
    );
    expect((await history(o, { scheduled: true }, o.mia)).messages).toMatchObject([{ id: 'msg_sched1', status: 'scheduled', seq: null }]);
    expect((await history(o, { scheduled: true }, o.owner)).messages).toEqual([]);
    // Nobody else sees a scheduled message, nor does it show in the channel.
    expect(await refused(o.s, 'messaging.history', { messageId: 'msg_sched1' }, 'NOT_FOUND', { key: o.owner.key })).toMatch(/^message msg_sched1 not found/);
    expect(seqs(await history(o, { channelId: c4.id }))).toEqual([2, 1]);
  });
});

describe('messaging.history by query', () => {
  it('ranked full text over the channels you may read, with highlights; from, since, until; a private channel you are not in is never searched', async () => {
    const pub = await newChannel(o, { members: [o.mia] });
    const priv = await newChannel(o, { private: true });
    const a = await say(o, o.mia, pub.id, 'The quarterly invoice run failed twice');
    const b = await say(o, o.owner, pub.id, 'Invoice sent');
    await say(o, o.owner, priv.id, 'secret invoice in a private channel');
    const res = await history(o, { query: 'invoice' }, o.mia);
    expect(res.messages.map((m: any) => m.id).sort()).toEqual([a.id, b.id].sort());
    expect(res.hits).toHaveLength(2);
    const hit = res.hits.find((h: any) => h.messageId === a.id);
    expect(hit.highlight.filter((s: any) => s.match).map((s: any) => s.text.toLowerCase())).toEqual(['invoice']);
    expect((await history(o, { query: 'invoice', from: o.owner.id }, o.mia)).messages.map((m: any) => m.id)).toEqual([b.id]);
    expect((await history(o, { query: 'invoice', channelId: pub.id, since: '2000-01-01T00:00:00Z' }, o.mia)).messages).toHaveLength(2);
    expect((await history(o, { query: 'invoice', until: '2000-01-01T00:00:00Z' }, o.mia)).messages).toEqual([]);
    // The owner reads the private channel too.
    expect((await history(o, { query: 'invoice' }, o.owner)).messages).toHaveLength(3);
    expect(await refused(o.s, 'messaging.history', { query: 'invoice', channelId: priv.id }, 'NOT_FOUND', { key: o.mia.key })).toMatch(/not found/);
  });
});

describe('messaging.history long-poll', () => {
  it('after + waitMs returns as soon as a message above it is posted, holding no transaction meanwhile', async () => {
    const c5 = await newChannel(o, { members: [o.mia] });
    const started = Date.now();
    const waiting = history(o, { channelId: c5.id, after: 0, waitMs: 20_000 }, o.mia);
    await new Promise((r) => setTimeout(r, 300));
    // Other calls run while it waits (PGlite has one connection).
    await say(o, o.owner, c5.id, 'wake up');
    const page = await waiting;
    expect(page).toMatchObject({ timedOut: false, lastSeq: 1 });
    expect(page.messages.map((m: any) => m.text)).toEqual(['wake up']);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('times out with timedOut:true and no messages', async () => {
    const c6 = await newChannel(o, { members: [o.mia] });
    const page = await history(o, { channelId: c6.id, after: 0, waitMs: 300 }, o.mia);
    expect(page).toMatchObject({ messages: [], timedOut: true, nextCursor: null });
  });
});

describe('messaging.history refusals', () => {
  it('exactly one mode; positional params only with channelId; BAD_REQUEST naming the field', async () => {
    const bad = async (params: object, re: RegExp) => expect(await refused(o.s, 'messaging.history', params, 'BAD_REQUEST')).toMatch(re);
    await bad({}, /^channelId: give exactly one of channelId, threadId, messageId, query or scheduled/);
    await bad({ channelId: ch.id, messageId: 'msg_a1' }, /^messageId: give exactly one/);
    await bad({ threadId: 'msg_a1', before: 3 }, /^before: only with channelId/);
    await bad({ channelId: ch.id, before: 3, after: 1 }, /^after: not with before/);
    await bad({ channelId: ch.id, waitMs: 100 }, /^waitMs: only with after/);
    await bad({ channelId: ch.id, after: 1, waitMs: 30_001 }, /^waitMs: must be at most 30000/);
    await bad({ pinned: true }, /^pinned: only with channelId/);
    await bad({ channelId: ch.id, from: o.mia.id }, /^from: only with query/);
    await bad({ query: 'x', threadId: 'msg_a1' }, /^threadId: not with query/);
    await bad({ channelId: ch.id, limit: 501 }, /^limit: must be at most 500/);
    await bad({ channelId: ch.id, cursor: 'garbage' }, /^cursor: not a cursor this history returned/);
    await bad({ channelId: ch.id, since: 'yesterday' }, /^since: must be an ISO 8601 date-time/);
  });

  it("a private channel you are not in, another org's or an unknown one: NOT_FOUND; a missing scope: FORBIDDEN_SCOPE", async () => {
    const priv = await newChannel(o, { private: true });
    const m = await say(o, o.owner, priv.id, 'private words');
    expect(await refused(o.s, 'messaging.history', { channelId: priv.id }, 'NOT_FOUND', { key: o.mia.key })).toMatch(/^channel ch_\w+ not found/);
    expect(await refused(o.s, 'messaging.history', { messageId: m.id }, 'NOT_FOUND', { key: o.mia.key })).toMatch(/^message msg_\w+ not found/);
    expect(await refused(o.s, 'messaging.history', { threadId: m.id }, 'NOT_FOUND', { key: o.mia.key })).toMatch(/not found/);
    const theirs = await otherOrg(o.s);
    expect((await theirs.rpc('messaging.history', { channelId: ch.id })).body.error.code).toBe('NOT_FOUND');
    // A public channel is readable by anyone of the org with messaging.read.
    expect((await history(o, { channelId: ch.id, limit: 1 }, o.viewer)).messages).toHaveLength(1);
    const noRead = await o.s.client.mint({ scopes: ['org.read'], principalKind: 'human' }, 'no read');
    expect(await refused(o.s, 'messaging.history', { channelId: ch.id }, 'FORBIDDEN_SCOPE', { key: noRead.apiKey })).toMatch(/missing scope messaging.read/);
  });
});
