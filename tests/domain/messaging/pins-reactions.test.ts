import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { mutate, ok, otherOrg, refused, rpc } from '../../helpers/calls.js';
import { channel, inSeconds, post, view } from './lifecycle-kit.js';

/* messaging.pin / unpin and messaging.react: who may, limits, no-ops, and events without emoji. */

describe('messaging.pin / unpin', () => {
  it('pins and unpins a posted message; again is changed:false with a noop event', async ({ team: t }) => {
    const m = await post(t, 'pin me');
    const pinned = await mutate(t.s, 'messaging.pin', { messageId: m.id }, 'messaging.message.pin', { key: t.bob.key });
    expect(pinned.result).toMatchObject({ changed: true, message: { id: m.id, pinned: true } });
    expect(pinned.event.payload).toEqual({ channelId: t.channelId, messageId: m.id, pins: 1 });
    expect(pinned.event.actor).toBe(t.bob.id);

    const again = await mutate(t.s, 'messaging.pin', { messageId: m.id }, 'messaging.message.pin', { key: t.alice.key });
    expect(again.result.changed).toBe(false);
    expect(again.event.payload.noop).toBe(true);

    const pins = await ok(t.s, 'messaging.history', { channelId: t.channelId, pinned: true });
    expect(pins.messages.map((x: any) => x.id)).toContain(m.id);

    const unpinned = await mutate(t.s, 'messaging.unpin', { messageId: m.id }, 'messaging.message.unpin', { key: t.alice.key });
    expect(unpinned.result).toMatchObject({ changed: true, message: { pinned: false } });
    const twice = await mutate(t.s, 'messaging.unpin', { messageId: m.id }, 'messaging.message.unpin', { key: t.alice.key });
    expect(twice.result.changed).toBe(false);
    expect(twice.event.payload).toMatchObject({ noop: true });
  });

  it('observers and outsiders cannot pin; a deleted message cannot be pinned; unknown and foreign ids are NOT_FOUND', async ({ team: t }) => {
    const m = await post(t, 'not for observers');
    expect(await refused(t.s, 'messaging.pin', { messageId: m.id }, 'CONFLICT', { key: t.watcher.key })).toMatch(/observer/);
    expect(await refused(t.s, 'messaging.pin', { messageId: m.id }, 'CONFLICT', { key: t.outsider.key })).toMatch(/not a member/);
    await refused(t.s, 'messaging.pin', { messageId: 'msg_doesnotexist000' }, 'NOT_FOUND');
    const other = await otherOrg(t.s);
    expect((await other.rpc('messaging.pin', { messageId: m.id })).body.error.code).toBe('NOT_FOUND');
    await refused(t.s, 'messaging.pin', { messageId: m.id }, 'FORBIDDEN_SCOPE', { key: t.viewer.key });
    await refused(t.s, 'messaging.pin', { messageId: 'nope' }, 'BAD_REQUEST');
    await ok(t.s, 'messaging.delete', { messageId: m.id }, t.alice.key);
    expect(await refused(t.s, 'messaging.pin', { messageId: m.id }, 'CONFLICT')).toMatch(/deleted/);
  });

  it('a private channel is NOT_FOUND to those outside it', async ({ team: t }) => {
    const priv = await channel(t, 'secret', [t.alice.id], { private: true });
    const m = await post(t, 'hush', t.alice.key, priv);
    await refused(t.s, 'messaging.pin', { messageId: m.id }, 'NOT_FOUND', { key: t.bob.key });
    await refused(t.s, 'messaging.react', { messageId: m.id, emoji: '👍' }, 'NOT_FOUND', { key: t.bob.key });
  });

  it('at most 100 pins per channel: the 101st is CONFLICT', async ({ team: t }) => {
    const ch = await channel(t, 'pins', [t.alice.id]);
    const ids: string[] = [];
    for (let i = 0; i < 101; i++) ids.push((await post(t, `m${i}`, t.alice.key, ch)).id);
    for (const id of ids.slice(0, 100)) await ok(t.s, 'messaging.pin', { messageId: id }, t.alice.key);
    expect(await refused(t.s, 'messaging.pin', { messageId: ids[100] }, 'CONFLICT', { key: t.alice.key })).toMatch(/100 pinned messages.*unpin one/);
    await ok(t.s, 'messaging.unpin', { messageId: ids[0] }, t.alice.key);
    expect((await ok(t.s, 'messaging.pin', { messageId: ids[100] }, t.alice.key)).changed).toBe(true);
  }, 60_000);
});

describe('messaging.react', () => {
  it('sets and clears a reaction; observers react; again is a no-op; the event carries counts, never the emoji', async ({ team: t }) => {
    const m = await post(t, 'react to me');
    const on = await mutate(t.s, 'messaging.react', { messageId: m.id, emoji: '🎉', on: true }, 'messaging.reaction.set', { key: t.watcher.key });
    expect(on.result.changed).toBe(true);
    expect(on.result.message.reactions).toEqual([{ emoji: '🎉', count: 1, me: true, principalIds: [t.watcher.id] }]);
    expect(on.event.payload).toEqual({ channelId: t.channelId, messageId: m.id, on: true, count: 1, distinct: 1 });
    expect(JSON.stringify(on.event)).not.toContain('🎉');

    await ok(t.s, 'messaging.react', { messageId: m.id, emoji: ':tada:' }, t.bob.key);
    const again = await mutate(t.s, 'messaging.react', { messageId: m.id, emoji: '🎉', on: true }, 'messaging.reaction.set', { key: t.watcher.key });
    expect(again.result.changed).toBe(false);
    expect(again.event.payload.noop).toBe(true);

    const off = await mutate(t.s, 'messaging.react', { messageId: m.id, emoji: '🎉', on: false }, 'messaging.reaction.set', { key: t.watcher.key });
    expect(off.result.changed).toBe(true);
    expect(off.result.message.reactions).toEqual([{ emoji: ':tada:', count: 1, me: false, principalIds: [t.bob.id] }]);
    const offAgain = await mutate(t.s, 'messaging.react', { messageId: m.id, emoji: '🎉', on: false }, 'messaging.reaction.set', { key: t.watcher.key });
    expect(offAgain.result.changed).toBe(false);
  });

  it('accepts :shortcode: and exactly one emoji (flags, keycaps, ZWJ sequences, skin tones); refuses the rest naming params.emoji', async ({ team: t }) => {
    const m = await post(t, 'emoji test');
    for (const emoji of [':+1:', ':white_check_mark:', '👍', '👍🏽', '❤️', '🇦🇺', '1️⃣', '👨‍👩‍👧', '🏳️‍🌈']) {
      expect((await ok(t.s, 'messaging.react', { messageId: m.id, emoji }, t.bob.key)).changed, emoji).toBe(true);
    }
    for (const emoji of ['a', 'ok', '👍👍', ':Thumbs Up:', '::', ':x', 'x:', '#', '👍 ', '<script>', ':a:b:']) {
      expect(await refused(t.s, 'messaging.react', { messageId: m.id, emoji }, 'BAD_REQUEST', { key: t.bob.key }), emoji).toMatch(/^emoji: /);
    }
    await refused(t.s, 'messaging.react', { messageId: m.id, emoji: '' }, 'BAD_REQUEST', { key: t.bob.key });
  });

  it('at most 50 distinct emoji per message; a known one still adds', async ({ team: t }) => {
    const m = await post(t, 'many reactions');
    for (let i = 0; i < 50; i++) await ok(t.s, 'messaging.react', { messageId: m.id, emoji: `:e${i}:` }, t.bob.key);
    expect(await refused(t.s, 'messaging.react', { messageId: m.id, emoji: ':e50:' }, 'CONFLICT', { key: t.alice.key })).toMatch(/50 different reactions/);
    expect((await ok(t.s, 'messaging.react', { messageId: m.id, emoji: ':e7:' }, t.alice.key)).changed).toBe(true);
    expect((await view(t, m.id)).reactions).toHaveLength(50);
  }, 30_000);

  it("a scheduled message is its author's alone (NOT_FOUND to others) and cannot be reacted to yet", async ({ team: t }) => {
    const s = (
      await ok(t.s, 'messaging.schedule', { channelId: t.channelId, idempotencyId: 'react-sched', text: 'later', postAt: inSeconds(t, 600) }, t.alice.key)
    ).message;
    await refused(t.s, 'messaging.react', { messageId: s.id, emoji: '👍' }, 'NOT_FOUND', { key: t.bob.key });
    await refused(t.s, 'messaging.pin', { messageId: s.id }, 'NOT_FOUND', { key: t.bob.key });
    expect(await refused(t.s, 'messaging.react', { messageId: s.id, emoji: '👍' }, 'CONFLICT', { key: t.alice.key })).toMatch(/scheduled/);
    const res = await rpc(t.s, 'messaging.react', { messageId: s.id, emoji: '👍', extra: 1 }, t.alice.key);
    expect(res.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^extra: unknown field/) });
  });
});
