import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { head, ok, refused } from '../../helpers/calls.js';
import { msgOrg, newChannel, say, type MsgOrg } from './core-kit.js';

/* messaging.channels: visibility, filters, paging, and unread/mention counts read from the rows. */

let o: MsgOrg;
beforeAll(async () => {
  o = await msgOrg();
}, 60_000);
afterAll(() => o.s.close());

const list = (params: object, key: string) => ok(o.s, 'messaging.channels', params, key);

describe('messaging.channels', () => {
  it('yours by default; membership all adds the public ones you are not in, never a private one; no event', async () => {
    const mine = await newChannel(o, { members: [o.mia] });
    const pub = await newChannel(o);
    const priv = await newChannel(o, { private: true });
    const dm = (await ok(o.s, 'channel.resolveOrCreateDm', { principalIds: [o.owner.id] }, o.mia.key)).channel;
    const before = await head(o.s.client);
    const ids = (r: any) => r.channels.map((c: any) => c.id);
    const member = await list({}, o.mia.key);
    expect(ids(member)).toEqual(expect.arrayContaining([mine.id, dm.id]));
    expect(ids(member)).not.toContain(pub.id);
    const all = await list({ membership: 'all' }, o.mia.key);
    expect(ids(all)).toEqual(expect.arrayContaining([mine.id, dm.id, pub.id]));
    expect(ids(all)).not.toContain(priv.id);
    expect(all.channels.find((c: any) => c.id === pub.id).membership).toBeNull();
    expect(ids(await list({ kinds: ['dm'] }, o.mia.key))).toEqual([dm.id]);
    expect(await head(o.s.client)).toBe(before);
  });

  it('name prefix, archived only on request, pages by name without gap or repeat', async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await ok(o.s, 'channel.create', { name: `zz-prefix-${i}` }, o.max.key)).channel);
    await ok(o.s, 'channel.update', { channelId: made[4].id, archived: true }, o.max.key);
    const first = await list({ query: 'ZZ-PREFIX', limit: 2 }, o.max.key);
    const second = await list({ query: 'zz-prefix', limit: 2, cursor: first.nextCursor }, o.max.key);
    expect([...first.channels, ...second.channels].map((c: any) => c.name)).toEqual(['zz-prefix-0', 'zz-prefix-1', 'zz-prefix-2', 'zz-prefix-3']);
    expect(second.nextCursor).toBeNull();
    expect((await list({ query: 'zz-prefix', includeArchived: true }, o.max.key)).channels.map((c: any) => c.archived)).toEqual([
      false,
      false,
      false,
      false,
      true,
    ]);
  });

  it('unreadCount and mentionCount come from the rows: a deleted message stops counting, thread replies count', async () => {
    const ch = await newChannel(o, { members: [o.mia] });
    const a = await say(o, o.owner, ch.id, `hey <@${o.mia.id}>`);
    await say(o, o.owner, ch.id, 'reply', { threadId: a.id });
    await say(o, o.owner, ch.id, 'plain');
    const mark = async () => (await list({}, o.mia.key)).channels.find((c: any) => c.id === ch.id).membership;
    expect(await mark()).toEqual({ role: 'member', lastReadSeq: 0, unreadCount: 3, mentionCount: 1 });
    await o.s.runtime.db.query(`UPDATE messages SET status = 'deleted', text = NULL WHERE org_id = $1 AND message_id = $2`, [o.s.org.orgId, a.id]);
    expect(await mark()).toEqual({ role: 'member', lastReadSeq: 0, unreadCount: 2, mentionCount: 0 });
  });

  it('bad input: BAD_REQUEST naming the field; a missing scope: FORBIDDEN_SCOPE', async () => {
    expect(await refused(o.s, 'messaging.channels', { kinds: ['room'] }, 'BAD_REQUEST')).toMatch(/^kinds\.0: must be one of/);
    expect(await refused(o.s, 'messaging.channels', { membership: 'some' }, 'BAD_REQUEST')).toMatch(/^membership: must be one of/);
    expect(await refused(o.s, 'messaging.channels', { cursor: 'nope' }, 'BAD_REQUEST')).toMatch(/^cursor: not a cursor/);
    expect(await refused(o.s, 'messaging.channels', { limit: 0 }, 'BAD_REQUEST')).toMatch(/^limit: must be >= 1/);
    const noRead = await o.s.client.mint({ scopes: ['org.read'], principalKind: 'agent' }, 'no read');
    expect(await refused(o.s, 'messaging.channels', {}, 'FORBIDDEN_SCOPE', { key: noRead.apiKey })).toMatch(/missing scope messaging.read/);
  });
});
