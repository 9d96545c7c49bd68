import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msgOrg, newChannel, say, type MsgOrg } from '../core-kit.js';
import { mutate, ok, refused } from '../../../helpers/calls.js';

/* channel.markRead and channel.markUnreadFrom: one marker per member, counts read from the rows. */

let o: MsgOrg;
beforeAll(async () => {
  o = await msgOrg();
}, 60_000);
afterAll(() => o.s.close());

const marks = async (channelId: string, key: string) =>
  (await ok(o.s, 'messaging.channels', { membership: 'all' }, key)).channels.find((c: any) => c.id === channelId).membership;

describe('channel.markRead', () => {
  it('moves the marker forward (default the latest seq); older is changed:false; past lastSeq is BAD_REQUEST seq', async () => {
    const ch = await newChannel(o, { members: [o.mia] });
    for (const t of ['one', `two <@${o.mia.id}>`, 'three <!channel>']) await say(o, o.owner, ch.id, t);
    await say(o, o.mia, ch.id, 'my own message is never unread to me');
    expect(await marks(ch.id, o.mia.key)).toEqual({ role: 'member', lastReadSeq: 0, unreadCount: 3, mentionCount: 2 });
    const { result, event } = await mutate(o.s, 'channel.markRead', { channelId: ch.id, seq: 2 }, 'channel.read.mark', { key: o.mia.key });
    expect(result).toEqual({ lastReadSeq: 2, unreadCount: 1, mentionCount: 1, changed: true });
    expect(event.payload).toEqual({ channelId: ch.id, lastReadSeq: 2 });
    const { result: older, event: noop } = await mutate(o.s, 'channel.markRead', { channelId: ch.id, seq: 1 }, 'channel.read.mark', { key: o.mia.key });
    expect(older).toEqual({ lastReadSeq: 2, unreadCount: 1, mentionCount: 1, changed: false });
    expect(noop.payload).toEqual({ channelId: ch.id, lastReadSeq: 2, noop: true });
    expect(await refused(o.s, 'channel.markRead', { channelId: ch.id, seq: 5 }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^seq: 5 is past the channel's latest seq 4/,
    );
    expect(await refused(o.s, 'channel.markRead', { channelId: ch.id, seq: -1 }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^seq: /);
    expect(await ok(o.s, 'channel.markRead', { channelId: ch.id }, o.mia.key)).toEqual({ lastReadSeq: 4, unreadCount: 0, mentionCount: 0, changed: true });
  });

  it('only members have a marker: a public channel read from outside is CONFLICT; a private one NOT_FOUND', async () => {
    const pub = await newChannel(o);
    const priv = await newChannel(o, { private: true });
    expect(await refused(o.s, 'channel.markRead', { channelId: pub.id }, 'CONFLICT', { key: o.max.key })).toMatch(
      /not a member of ch_\w+: only members have a read marker/,
    );
    expect(await refused(o.s, 'channel.markRead', { channelId: priv.id }, 'NOT_FOUND', { key: o.max.key })).toMatch(/not found/);
  });
});

describe('channel.markUnreadFrom', () => {
  it("sets the marker to the message's seq minus 1 (back or forward); the same place again is changed:false", async () => {
    const ch = await newChannel(o, { members: [o.mia] });
    const sent = [];
    for (const t of ['a', 'b', 'c']) sent.push(await say(o, o.owner, ch.id, t));
    await ok(o.s, 'channel.markRead', { channelId: ch.id }, o.mia.key);
    const { result, event } = await mutate(o.s, 'channel.markUnreadFrom', { messageId: sent[1].id }, 'channel.read.unmark', { key: o.mia.key });
    expect(result).toEqual({ lastReadSeq: 1, unreadCount: 2, mentionCount: 0, changed: true });
    expect(event.payload).toEqual({ channelId: ch.id, messageId: sent[1].id, lastReadSeq: 1 });
    const again = await ok(o.s, 'channel.markUnreadFrom', { messageId: sent[1].id }, o.mia.key);
    expect(again.changed).toBe(false);
    expect(await refused(o.s, 'channel.markUnreadFrom', { messageId: 'msg_nope1' }, 'NOT_FOUND', { key: o.mia.key })).toMatch(/^message msg_nope1 not found/);
    const priv = await newChannel(o, { private: true });
    const hidden = await say(o, o.owner, priv.id, 'hidden');
    expect(await refused(o.s, 'channel.markUnreadFrom', { messageId: hidden.id }, 'NOT_FOUND', { key: o.mia.key })).toMatch(/^message msg_\w+ not found/);
  });
});
