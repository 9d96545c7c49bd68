import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../gateway/app.js';
import { one } from '../../../db/types.js';
import { allEvents, TestClient } from '../../helpers/harness.js';
import { expectOk, head, ok, otherOrg, refused } from '../../helpers/calls.js';
import { openOrgStream } from '../../helpers/org-stream.js';
import { history, msgOrg, newChannel, say, type MsgOrg } from './core-kit.js';

/* Messaging's acceptance scenarios 1, 2, 5 and 6, end to end over HTTP (5 over a real socket). */

let o: MsgOrg;
beforeAll(async () => {
  o = await msgOrg();
}, 60_000);
afterAll(() => o.s.close());

const unread = async (channelId: string, key: string) =>
  (await ok(o.s, 'messaging.channels', { membership: 'all' }, key)).channels.find((c: any) => c.id === channelId).membership.unreadCount;

describe('scenario 1: DM', () => {
  it('opened twice, one ch_; a keyed send retried without the header but with the same idempotencyId is one message; its delete returns unread to 0', async () => {
    const first = (await ok(o.s, 'channel.resolveOrCreateDm', { principalIds: [o.max.id] }, o.mia.key, 'dm-open-1')).channel;
    const second = (await ok(o.s, 'channel.resolveOrCreateDm', { principalIds: [o.mia.id] }, o.max.key)).channel;
    expect(second.id).toBe(first.id);
    const params = { channelId: first.id, idempotencyId: 'dm-hello-1', text: 'Are you free at 3?' };
    const keyed = await ok(o.s, 'messaging.send', params, o.mia.key, 'http-key-1');
    const replayed = await o.s.client.rpc('messaging.send', params, { key: o.mia.key, idem: 'http-key-1' });
    expect(expectOk('messaging.send', replayed).message.id).toBe(keyed.message.id);
    const retried = await ok(o.s, 'messaging.send', params, o.mia.key);
    expect(retried).toMatchObject({ changed: false, message: { id: keyed.message.id, seq: 1 } });
    expect((await history(o, { channelId: first.id }, o.max)).messages).toHaveLength(1);
    expect(await unread(first.id, o.max.key)).toBe(1);
    await ok(o.s, 'messaging.delete', { messageId: keyed.message.id }, o.mia.key);
    expect(await unread(first.id, o.max.key)).toBe(0);
    const [tomb] = (await history(o, { channelId: first.id }, o.max)).messages;
    expect(tomb).toMatchObject({ id: keyed.message.id, seq: 1, status: 'deleted', text: null });
  });
});

describe('scenario 2: channel', () => {
  it('thread replies, a reaction and a pin; "deploy failed" -staging finds the root; read marks match the rows', async () => {
    const ch = await newChannel(o, { members: [o.mia, o.max, o.agent] });
    const root = await say(o, o.agent, ch.id, 'The deploy failed on production at 14:02');
    await say(o, o.agent, ch.id, 'The deploy failed on staging as well, ignore that one');
    await say(o, o.mia, ch.id, 'Looking into it', { threadId: root.id });
    await say(o, o.max, ch.id, `Rolled back <@${o.mia.id}>`, { threadId: root.id, alsoToChannel: true });
    await ok(o.s, 'messaging.react', { messageId: root.id, emoji: ':eyes:' }, o.mia.key);
    await ok(o.s, 'messaging.pin', { messageId: root.id }, o.owner.key);
    const [shown] = (await history(o, { messageId: root.id }, o.mia)).messages;
    expect(shown).toMatchObject({ replyCount: 2, pinned: true, reactions: [{ emoji: ':eyes:', count: 1, me: true, principalIds: [o.mia.id] }] });
    const found = await history(o, { query: '"deploy failed" -staging' }, o.mia);
    expect(found.messages.map((m: any) => m.id)).toEqual([root.id]);
    expect(found.hits[0].highlight.some((s: any) => s.match)).toBe(true);
    expect((await history(o, { channelId: ch.id, pinned: true }, o.max)).messages.map((m: any) => m.id)).toEqual([root.id]);
    // Read marks against the rows: the owner has read nothing; mia is mentioned once, by a reply.
    const owner = (await ok(o.s, 'messaging.channels', {}, o.owner.key)).channels.find((c: any) => c.id === ch.id).membership;
    const { n } = one(
      await o.s.runtime.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE org_id = $1 AND channel_id = $2 AND status = 'posted' AND author_id <> $3`,
        [o.s.org.orgId, ch.id, o.owner.id],
      ),
    );
    expect(owner).toMatchObject({ lastReadSeq: 0, unreadCount: n, mentionCount: 0 });
    const mia = await ok(o.s, 'channel.markRead', { channelId: ch.id, seq: 2 }, o.mia.key);
    expect(mia).toMatchObject({ lastReadSeq: 2, unreadCount: 1, mentionCount: 1 });
    expect(await ok(o.s, 'channel.markRead', { channelId: ch.id }, o.mia.key)).toMatchObject({ lastReadSeq: 4, unreadCount: 0, mentionCount: 0 });
  });
});

describe('scenario 5: stream', () => {
  let app: FastifyInstance;
  let base: string;
  beforeAll(async () => {
    app = await buildApp({ runtime: o.s.runtime, logger: false, rateLimitPerMinute: 0 });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app?.close());

  it('after a drop, Last-Event-ID gets exactly the 5 missed frames, in order', async () => {
    const client = new TestClient(app, o.s.org.adminKey);
    const ch = await newChannel(o, { members: [o.mia] });
    const stream = await openOrgStream(base, o.mia.key);
    await stream.until(() => stream.comments.some((c) => c.startsWith('live after')), 'live');
    await say(o, o.owner, ch.id, 'before the drop');
    await stream.until(() => stream.frames.length >= 1, 'the first frame');
    const lastSeen = stream.lastId()!;
    stream.close();
    await stream.ended;
    const missed = [];
    for (let i = 1; i <= 5; i++) missed.push((await say(o, o.owner, ch.id, `missed ${i}`)).id);
    const again = await openOrgStream(base, o.mia.key, { lastEventId: lastSeen });
    try {
      await again.until(() => again.frames.length >= 5, '5 frames');
      await new Promise((r) => setTimeout(r, 300));
      expect(again.frames.map((f) => f.id)).toEqual([lastSeen + 1, lastSeen + 2, lastSeen + 3, lastSeen + 4, lastSeen + 5]);
      expect(again.frames.map((f) => f.data.kind)).toEqual(Array(5).fill('messaging.message.send'));
      expect(again.frames.map((f) => f.data.payload.messageId)).toEqual(missed);
      expect(JSON.stringify(again.frames)).not.toContain('missed 1');
    } finally {
      again.close();
    }
    expect(await head(client)).toBe(lastSeen + 5);
  });
});

describe('scenario 6: bad inputs change nothing and append no event', () => {
  it('BAD_REQUEST naming the field, CONFLICT, NOT_FOUND and FORBIDDEN_SCOPE, the ledger unchanged', async () => {
    const ch = await newChannel(o, { members: [o.mia] });
    const before = (await allEvents(o.s.client)).length;
    expect(await refused(o.s, 'messaging.send', { channelId: ch.id, text: 'no key' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^idempotencyId: required/);
    expect(await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'a', text: 'x', mood: 'happy' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^mood: unknown field/,
    );
    expect(await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'a', text: 'y'.repeat(16_001) }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^text: /,
    );
    expect(await refused(o.s, 'channel.create', { name: 'has spaces' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^name: /);
    expect(await refused(o.s, 'channel.markRead', { channelId: ch.id, seq: 99 }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^seq: /);
    expect(await refused(o.s, 'channel.removeMember', { channelId: ch.id, principalId: o.owner.id }, 'CONFLICT', { key: o.owner.key })).toMatch(/last owner/);
    const theirs = await otherOrg(o.s);
    for (const [method, params] of [
      ['messaging.send', { channelId: ch.id, idempotencyId: 'x', text: 'x' }],
      ['channel.addMember', { channelId: ch.id, principalId: o.mia.id }],
      ['messaging.history', { channelId: ch.id }],
    ] as const) {
      expect((await theirs.rpc(method, params)).body.error.code, method).toBe('NOT_FOUND');
    }
    expect(await refused(o.s, 'channel.create', { name: 'by-a-viewer' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key })).toMatch(/missing scope messaging.write/);
    expect((await allEvents(o.s.client)).length).toBe(before);
    expect((await history(o, { channelId: ch.id })).messages).toEqual([]);
  });
});
