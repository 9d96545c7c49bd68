import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { mutate, ok, otherOrg, refused } from '../../../helpers/calls.js';
import { newChannel } from '../core-kit.js';

/* channel.addMember, channel.removeMember, channel.updateMemberRole, channel.update. */

describe('channel.addMember', () => {
  it('public: anyone joins themselves, any member adds others; already a member is changed:false with a noop event', async ({ cast: o }) => {
    const ch = await newChannel(o);
    const { result, event } = await mutate(o.s, 'channel.addMember', { channelId: ch.id, principalId: o.mia.id }, 'channel.member.add', { key: o.mia.key });
    expect(result).toMatchObject({ changed: true, member: { principalId: o.mia.id, role: 'member', addedBy: o.mia.id } });
    expect(event.payload).toEqual({ channelId: ch.id, principalId: o.mia.id, role: 'member' });
    await ok(o.s, 'channel.addMember', { channelId: ch.id, principalId: o.agent.id, role: 'observer' }, o.mia.key);
    const { result: again, event: noop } = await mutate(o.s, 'channel.addMember', { channelId: ch.id, principalId: o.agent.id }, 'channel.member.add', {
      key: o.owner.key,
    });
    expect(again).toMatchObject({ changed: false, member: { role: 'observer' } });
    expect(noop.payload.noop).toBe(true);
    // A non-member may not add someone else; an observer may not add anyone.
    expect(await refused(o.s, 'channel.addMember', { channelId: ch.id, principalId: o.viewer.id }, 'CONFLICT', { key: o.max.key })).toMatch(
      /^you are not a member of ch_\w+/,
    );
    expect(await refused(o.s, 'channel.addMember', { channelId: ch.id, principalId: o.max.id }, 'CONFLICT', { key: o.agent.key })).toMatch(/observer/);
  });

  it("a new member starts with nothing unread: its marker is the channel's latest seq", async ({ cast: o }) => {
    const ch = await newChannel(o, { members: [o.mia] });
    await ok(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'a', text: 'before you came' }, o.mia.key);
    const { member } = await ok(o.s, 'channel.addMember', { channelId: ch.id, principalId: o.max.id }, o.mia.key);
    expect(member.lastReadSeq).toBe(1);
  });

  it('private: owners and admins add; a plain member is CONFLICT; group: any member', async ({ cast: o }) => {
    const priv = await newChannel(o, { private: true, members: [o.mia] });
    expect(await refused(o.s, 'channel.addMember', { channelId: priv.id, principalId: o.max.id }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /only an owner or admin adds members to the private channel/,
    );
    expect(await refused(o.s, 'channel.addMember', { channelId: priv.id, principalId: o.max.id }, 'NOT_FOUND', { key: o.max.key })).toMatch(
      /^channel ch_\w+ not found/,
    );
    await ok(o.s, 'channel.addMember', { channelId: priv.id, principalId: o.max.id }, o.owner.key);
    const group = (await ok(o.s, 'channel.createConversation', { principalIds: [o.mia.id, o.max.id] }, o.owner.key)).channel;
    expect((await ok(o.s, 'channel.addMember', { channelId: group.id, principalId: o.agent.id }, o.mia.key)).changed).toBe(true);
  });

  it("an unknown or another org's channel or member: NOT_FOUND; an archived channel: CONFLICT", async ({ cast: o }) => {
    const ch = await newChannel(o);
    expect(await refused(o.s, 'channel.addMember', { channelId: 'ch_nope1', principalId: o.mia.id }, 'NOT_FOUND')).toMatch(/^channel ch_nope1 not found/);
    expect(await refused(o.s, 'channel.addMember', { channelId: ch.id, principalId: 'usr_nope1' }, 'NOT_FOUND')).toMatch(/^member usr_nope1 not found/);
    const theirs = await otherOrg(o.s);
    expect((await theirs.rpc('channel.addMember', { channelId: ch.id, principalId: o.mia.id })).body.error.code).toBe('NOT_FOUND');
    await ok(o.s, 'channel.update', { channelId: ch.id, archived: true });
    expect(await refused(o.s, 'channel.addMember', { channelId: ch.id, principalId: o.mia.id }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /is archived: unarchive it first/,
    );
  });
});

describe('channel.removeMember', () => {
  it('anyone leaves; owners and admins remove others; not a member: changed:false; the last owner: CONFLICT', async ({ cast: o }) => {
    const ch = await newChannel(o, { members: [o.mia, o.max] });
    const { result, event } = await mutate(o.s, 'channel.removeMember', { channelId: ch.id, principalId: o.max.id }, 'channel.member.remove', {
      key: o.max.key,
    });
    expect(result.changed).toBe(true);
    expect(event.payload).toEqual({ channelId: ch.id, principalId: o.max.id });
    const { result: again, event: noop } = await mutate(o.s, 'channel.removeMember', { channelId: ch.id, principalId: o.max.id }, 'channel.member.remove', {
      key: o.owner.key,
    });
    expect(again.changed).toBe(false);
    expect(noop.payload.noop).toBe(true);
    await ok(o.s, 'channel.addMember', { channelId: ch.id, principalId: o.max.id }, o.max.key);
    expect(await refused(o.s, 'channel.removeMember', { channelId: ch.id, principalId: o.max.id }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /only an owner or admin of ch_\w+ removes others/,
    );
    expect(await refused(o.s, 'channel.removeMember', { channelId: ch.id, principalId: o.owner.id }, 'CONFLICT', { key: o.owner.key })).toMatch(
      /is the last owner of ch_\w+: make another member owner first/,
    );
    await ok(o.s, 'channel.updateMemberRole', { channelId: ch.id, principalId: o.mia.id, role: 'admin' }, o.owner.key);
    // An admin removes members, never an owner.
    expect((await ok(o.s, 'channel.removeMember', { channelId: ch.id, principalId: o.max.id }, o.mia.key)).changed).toBe(true);
    expect(await refused(o.s, 'channel.removeMember', { channelId: ch.id, principalId: o.owner.id }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /only an owner removes an owner/,
    );
    await ok(o.s, 'channel.updateMemberRole', { channelId: ch.id, principalId: o.mia.id, role: 'owner' }, o.owner.key);
    expect((await ok(o.s, 'channel.removeMember', { channelId: ch.id, principalId: o.owner.id }, o.owner.key)).changed).toBe(true);
    // Rejoining brings the row back.
    expect((await ok(o.s, 'channel.addMember', { channelId: ch.id, principalId: o.owner.id }, o.owner.key)).member.role).toBe('member');
  });
});

describe('channel.updateMemberRole', () => {
  it('owners grant owner and admin; admins set member and observer; demoting the last owner is CONFLICT; same role changed:false', async ({ cast: o }) => {
    const ch = await newChannel(o, { members: [o.mia, o.max] });
    const { result, event } = await mutate(
      o.s,
      'channel.updateMemberRole',
      { channelId: ch.id, principalId: o.mia.id, role: 'admin' },
      'channel.member.change_role',
      { key: o.owner.key },
    );
    expect(result).toMatchObject({ changed: true, member: { principalId: o.mia.id, role: 'admin' } });
    expect(event.payload).toEqual({ channelId: ch.id, principalId: o.mia.id, role: 'admin', previousRole: 'member' });
    expect(await refused(o.s, 'channel.updateMemberRole', { channelId: ch.id, principalId: o.max.id, role: 'admin' }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /only an owner of ch_\w+ grants or takes owner and admin/,
    );
    expect((await ok(o.s, 'channel.updateMemberRole', { channelId: ch.id, principalId: o.max.id, role: 'observer' }, o.mia.key)).member.role).toBe('observer');
    expect(await refused(o.s, 'channel.updateMemberRole', { channelId: ch.id, principalId: o.mia.id, role: 'member' }, 'CONFLICT', { key: o.max.key })).toMatch(
      /only an owner or admin/,
    );
    expect(
      await refused(o.s, 'channel.updateMemberRole', { channelId: ch.id, principalId: o.owner.id, role: 'member' }, 'CONFLICT', { key: o.owner.key }),
    ).toMatch(/is the last owner/);
    const { result: same, event: noop } = await mutate(
      o.s,
      'channel.updateMemberRole',
      { channelId: ch.id, principalId: o.mia.id, role: 'admin' },
      'channel.member.change_role',
      { key: o.owner.key },
    );
    expect(same.changed).toBe(false);
    expect(noop.payload.noop).toBe(true);
    expect(
      await refused(o.s, 'channel.updateMemberRole', { channelId: ch.id, principalId: o.agent.id, role: 'member' }, 'CONFLICT', { key: o.owner.key }),
    ).toMatch(/is not a member of ch_\w+: add them first/);
    expect(
      await refused(o.s, 'channel.updateMemberRole', { channelId: ch.id, principalId: o.mia.id, role: 'boss' }, 'BAD_REQUEST', { key: o.owner.key }),
    ).toMatch(/^role: must be one of/);
  });
});

describe('channel.update', () => {
  it('topic by any member; name, postingPolicy, archived by owners and admins; nothing different: changed:false; the event names fields, never values', async ({
    cast: o,
  }) => {
    const ch = await newChannel(o, { members: [o.mia] });
    const { result, event } = await mutate(o.s, 'channel.update', { channelId: ch.id, topic: 'Secret topic words' }, 'channel.channel.update', {
      key: o.mia.key,
    });
    expect(result.channel.topic).toBe('Secret topic words');
    expect(event.payload).toEqual({ channelId: ch.id, fields: ['topic'], archived: false, postingPolicy: 'everyone' });
    expect(JSON.stringify(event)).not.toContain('Secret topic');
    expect(await refused(o.s, 'channel.update', { channelId: ch.id, name: 'renamed-x' }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /only an owner or admin of ch_\w+ changes its name/,
    );
    const renamed = (await ok(o.s, 'channel.update', { channelId: ch.id, name: `${ch.name}-v2`, postingPolicy: 'admins' }, o.owner.key)).channel;
    expect(renamed).toMatchObject({ name: `${ch.name}-v2`, postingPolicy: 'admins' });
    const { result: same, event: noop } = await mutate(o.s, 'channel.update', { channelId: ch.id, topic: 'Secret topic words' }, 'channel.channel.update', {
      key: o.mia.key,
    });
    expect(same.changed).toBe(false);
    expect(noop.payload).toMatchObject({ fields: [], noop: true });
    expect(await refused(o.s, 'channel.update', { channelId: ch.id, title: 'x' }, 'BAD_REQUEST')).toMatch(/^title: only a group conversation has a title/);
    // Archived: only archived:false; then it takes writes again.
    await ok(o.s, 'channel.update', { channelId: ch.id, archived: true });
    expect(await refused(o.s, 'channel.update', { channelId: ch.id, topic: 'new' }, 'CONFLICT', { key: o.mia.key })).toMatch(/is archived: unarchive it first/);
    expect(await refused(o.s, 'channel.update', { channelId: ch.id, archived: false }, 'CONFLICT', { key: o.mia.key })).toMatch(/changes its archived/);
    expect((await ok(o.s, 'channel.update', { channelId: ch.id, archived: false, topic: 'back' })).channel).toMatchObject({ archived: false, topic: 'back' });
    // Not a member: CONFLICT; another org: NOT_FOUND.
    expect(await refused(o.s, 'channel.update', { channelId: ch.id, topic: 'x' }, 'CONFLICT', { key: o.max.key })).toMatch(/not a member/);
    const theirs = await otherOrg(o.s);
    expect((await theirs.rpc('channel.update', { channelId: ch.id, topic: 'x' })).body.error.code).toBe('NOT_FOUND');
  });
});
