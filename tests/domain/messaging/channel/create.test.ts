import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { mutate, ok, otherOrg, refused } from '../../../helpers/calls.js';
import { uniqueName } from '../core-kit.js';

/* channel.create, channel.createConversation, channel.resolveOrCreateDm. */

describe('channel.create', () => {
  it('creates a public channel: the caller owns it, memberIds are members; one event of ids and counts', async ({ cast: o }) => {
    const name = uniqueName('deploys');
    const { result, event } = await mutate(
      o.s,
      'channel.create',
      { name, topic: 'Release train secrets', memberIds: [o.mia.id, o.agent.id, o.owner.id] },
      'channel.channel.create',
      { key: o.owner.key },
    );
    expect(result.changed).toBe(true);
    expect(result.channel).toMatchObject({
      kind: 'public',
      name,
      title: null,
      topic: 'Release train secrets',
      postingPolicy: 'everyone',
      archived: false,
      memberCount: 3,
      lastSeq: 0,
      createdBy: o.owner.id,
      membership: { role: 'owner', lastReadSeq: 0, unreadCount: 0, mentionCount: 0 },
    });
    expect(event.payload).toEqual({ channelId: result.channel.id, kind: 'public', postingPolicy: 'everyone', memberCount: 3 });
    expect(JSON.stringify(event)).not.toContain('Release train');
    expect(JSON.stringify(event)).not.toContain(name);
  });

  it('a name taken by a live channel is CONFLICT; once that one is archived the name is free', async ({ cast: o }) => {
    const name = uniqueName('ops');
    const first = (await ok(o.s, 'channel.create', { name }, o.mia.key)).channel;
    expect(await refused(o.s, 'channel.create', { name, private: true }, 'CONFLICT', { key: o.max.key })).toMatch(
      /^the name ops-\S+ is taken by a live channel: choose another name/,
    );
    await ok(o.s, 'channel.update', { channelId: first.id, archived: true }, o.mia.key);
    const second = (await ok(o.s, 'channel.create', { name, private: true }, o.max.key)).channel;
    expect(second).toMatchObject({ kind: 'private', name });
    // Unarchiving the first under a name now taken: CONFLICT.
    expect(await refused(o.s, 'channel.update', { channelId: first.id, archived: false }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /is taken by a live channel/,
    );
  });

  it("bad input: BAD_REQUEST naming the field; an unknown member: NOT_FOUND; another org's member: NOT_FOUND; missing scope", async ({ cast: o }) => {
    expect(await refused(o.s, 'channel.create', { name: 'Bad Name' }, 'BAD_REQUEST')).toMatch(/^name: must be 1-80 characters/);
    expect(await refused(o.s, 'channel.create', { name: 'x'.repeat(81) }, 'BAD_REQUEST')).toMatch(/^name: /);
    expect(await refused(o.s, 'channel.create', { name: 'ok-name', memberIds: [o.mia.id, o.mia.id] }, 'BAD_REQUEST')).toMatch(/^memberIds: must not repeat/);
    expect(await refused(o.s, 'channel.create', { name: 'ok-name', memberIds: ['ch_1'] }, 'BAD_REQUEST')).toMatch(/^memberIds\.0: must be a member id/);
    expect(await refused(o.s, 'channel.create', { name: 'ok-name', postingPolicy: 'nobody' }, 'BAD_REQUEST')).toMatch(/^postingPolicy: must be one of/);
    expect(await refused(o.s, 'channel.create', { name: 'ok-name', memberIds: ['usr_nobody1'] }, 'NOT_FOUND')).toMatch(/^member usr_nobody1 not found/);
    const theirs = await otherOrg(o.s);
    const stranger = (await theirs.get('org/whoami')).body.principal.id;
    expect(await refused(o.s, 'channel.create', { name: 'ok-name', memberIds: [stranger] }, 'NOT_FOUND')).toMatch(/^member usr_\w+ not found/);
    expect(await refused(o.s, 'channel.create', { name: 'ok-name' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key })).toMatch(/missing scope messaging.write/);
  });
});

describe('channel.createConversation', () => {
  it('a private group of the caller (owner) and 2-49 others, with a title; one event', async ({ cast: o }) => {
    const { result, event } = await mutate(
      o.s,
      'channel.createConversation',
      { principalIds: [o.mia.id, o.agent.id], title: 'Launch prep' },
      'channel.conversation.create',
      { key: o.max.key },
    );
    expect(result.channel).toMatchObject({ kind: 'group', name: null, title: 'Launch prep', memberCount: 3, membership: { role: 'owner' } });
    expect(event.payload).toEqual({ channelId: result.channel.id, kind: 'group', memberCount: 3 });
    // Invisible to others: NOT_FOUND.
    expect(await refused(o.s, 'channel.update', { channelId: result.channel.id, topic: 'x' }, 'NOT_FOUND', { key: o.owner.key })).toMatch(
      /^channel ch_\w+ not found/,
    );
  });

  it('fewer than 2 others is BAD_REQUEST (yourself does not count); more than 49 too', async ({ cast: o }) => {
    expect(await refused(o.s, 'channel.createConversation', { principalIds: [o.mia.id] }, 'BAD_REQUEST', { key: o.max.key })).toMatch(
      /^principalIds: must list at least 2/,
    );
    expect(await refused(o.s, 'channel.createConversation', { principalIds: [o.mia.id, o.max.id] }, 'BAD_REQUEST', { key: o.max.key })).toMatch(
      /^principalIds: must name at least 2 others besides you/,
    );
    const many = Array.from({ length: 50 }, (_, i) => `usr_x${i}`);
    expect(await refused(o.s, 'channel.createConversation', { principalIds: many }, 'BAD_REQUEST', { key: o.max.key })).toMatch(
      /^principalIds: must list at most 49/,
    );
  });
});

describe('channel.resolveOrCreateDm', () => {
  it('one DM per member set, whoever opens it: the second call is changed:false with a noop event', async ({ cast: o }) => {
    const { result: first, event } = await mutate(o.s, 'channel.resolveOrCreateDm', { principalIds: [o.mia.id] }, 'channel.dm.resolve', { key: o.max.key });
    expect(first.changed).toBe(true);
    expect(first.channel).toMatchObject({ kind: 'dm', name: null, memberCount: 2, membership: { role: 'member' } });
    expect(event.payload).toEqual({ channelId: first.channel.id, memberCount: 2 });
    const { result: again, event: noop } = await mutate(o.s, 'channel.resolveOrCreateDm', { principalIds: [o.max.id] }, 'channel.dm.resolve', {
      key: o.mia.key,
    });
    expect(again).toMatchObject({ changed: false, channel: { id: first.channel.id } });
    expect(noop.payload).toEqual({ channelId: first.channel.id, memberCount: 2, noop: true });
    // A DM with yourself (no others) is its own channel; a set of three another.
    const self = (await ok(o.s, 'channel.resolveOrCreateDm', { principalIds: [] }, o.max.key)).channel;
    expect(self).toMatchObject({ kind: 'dm', memberCount: 1 });
    expect((await ok(o.s, 'channel.resolveOrCreateDm', { principalIds: [o.max.id] }, o.max.key)).channel.id).toBe(self.id);
    const three = (await ok(o.s, 'channel.resolveOrCreateDm', { principalIds: [o.mia.id, o.agent.id] }, o.max.key)).channel;
    expect(three.id).not.toBe(first.channel.id);
    expect(three.memberCount).toBe(3);
  });

  it('a DM refuses addMember and removeMember (its set is fixed), roles and archiving', async ({ cast: o }) => {
    const dm = (await ok(o.s, 'channel.resolveOrCreateDm', { principalIds: [o.agent.id] }, o.mia.key)).channel;
    expect(await refused(o.s, 'channel.addMember', { channelId: dm.id, principalId: o.max.id }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /is a DM: its members are fixed/,
    );
    expect(await refused(o.s, 'channel.removeMember', { channelId: dm.id, principalId: o.mia.id }, 'CONFLICT', { key: o.mia.key })).toMatch(/is a DM/);
    expect(await refused(o.s, 'channel.updateMemberRole', { channelId: dm.id, principalId: o.mia.id, role: 'owner' }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /is a DM/,
    );
    expect(await refused(o.s, 'channel.update', { channelId: dm.id, archived: true }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^archived: a DM is never archived/,
    );
    // Outsiders do not see it.
    expect(await refused(o.s, 'channel.markRead', { channelId: dm.id }, 'NOT_FOUND', { key: o.max.key })).toMatch(/not found/);
  });

  it('more than 8 others, or an unknown one: refused', async ({ cast: o }) => {
    const nine = Array.from({ length: 9 }, (_, i) => `usr_x${i}`);
    expect(await refused(o.s, 'channel.resolveOrCreateDm', { principalIds: nine }, 'BAD_REQUEST', { key: o.max.key })).toMatch(
      /^principalIds: must list at most 8/,
    );
    expect(await refused(o.s, 'channel.resolveOrCreateDm', { principalIds: ['agt_nobody9'] }, 'NOT_FOUND', { key: o.max.key })).toMatch(
      /^member agt_nobody9 not found/,
    );
  });
});
