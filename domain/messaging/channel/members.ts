import { conflict } from '../../../protocol/errors.js';
import { channel as c } from '../../../protocol/methods/channel.js';
import { one } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { channelAccess, managesChannel, type ChannelAccess } from './access.js';
import { requireMembers } from './create.js';
import { addMembers, lockedOwners, memberRow, toMember } from './model.js';

/*
 * Membership (docs/families/messaging.md): who may add whom depends on the channel's kind; anyone leaves, owners and
 * admins remove others; only owners touch owners and admins; a channel always keeps one owner; a DM's set is fixed.
 */

const notMember = (channelId: string) => conflict(`you are not a member of ${channelId}: join it first (channel.addMember with your own id)`);
const archived = (channelId: string) => conflict(`${channelId} is archived: unarchive it first (channel.update archived:false, by an owner or admin)`);
const dmFixed = (channelId: string) =>
  conflict(`${channelId} is a DM: its members are fixed; open a DM or group with the set you want (channel.resolveOrCreateDm, channel.createConversation)`);

function mayAdd(a: ChannelAccess, me: string, target: string): void {
  const id = a.channel.channel_id;
  if (a.channel.kind === 'dm') throw dmFixed(id);
  if (a.channel.kind === 'public' && target === me) return;
  if (a.role === null) throw notMember(id);
  if (a.role === 'observer') throw conflict(`you are an observer of ${id}: observers only read and react; ask an owner or admin to add members`);
  if (a.channel.kind === 'private' && !managesChannel(a.role))
    throw conflict(`only an owner or admin adds members to the private channel ${id}; ask one of them`);
}

export const addMember = handler(c.addMember, async (ctx, p) => {
  const a = await channelAccess(ctx.q, ctx.orgId, p.channelId, ctx.principal.id, 'read', { lock: true });
  if (a.channel.archived_at !== null) throw archived(p.channelId);
  mayAdd(a, ctx.principal.id, p.principalId);
  await requireMembers(ctx.q, ctx.orgId, [p.principalId]);
  const at = ctx.deps.clock.now().toISOString();
  // A new member starts with nothing unread: the marker at the channel's latest seq.
  const [added] = await addMembers(ctx.q, ctx.orgId, p.channelId, [{ id: p.principalId, role: p.role }], ctx.principal.id, at, Number(a.channel.last_seq));
  const row = added ?? (await memberRow(ctx.q, ctx.orgId, p.channelId, p.principalId))!;
  await ctx.emit('channel.member.add', p.channelId, {
    channelId: p.channelId,
    principalId: p.principalId,
    role: row.role,
    ...(added ? {} : { noop: true }),
  });
  return { member: toMember(row), changed: Boolean(added) };
});

export const removeMember = handler(c.removeMember, async (ctx, p) => {
  const a = await channelAccess(ctx.q, ctx.orgId, p.channelId, ctx.principal.id, 'read', { lock: true });
  const self = p.principalId === ctx.principal.id;
  if (a.channel.kind === 'dm') throw dmFixed(p.channelId);
  if (!self) {
    if (a.role === null) throw notMember(p.channelId);
    if (!managesChannel(a.role)) throw conflict(`only an owner or admin of ${p.channelId} removes others (anyone may remove themselves)`);
  }
  const target = await memberRow(ctx.q, ctx.orgId, p.channelId, p.principalId, true);
  const live = target !== undefined && target.removed_at === null;
  if (live && target.role === 'owner') {
    if (!self && a.role !== 'owner') throw conflict(`${p.principalId} is an owner of ${p.channelId}: only an owner removes an owner`);
    const owners = await lockedOwners(ctx.q, ctx.orgId, p.channelId);
    if (owners.length <= 1) {
      throw conflict(`${p.principalId} is the last owner of ${p.channelId}: make another member owner first (channel.updateMemberRole), then remove`);
    }
  }
  if (live) {
    await ctx.q.query('UPDATE channel_members SET removed_at = $4 WHERE org_id = $1 AND channel_id = $2 AND principal_id = $3', [
      ctx.orgId,
      p.channelId,
      p.principalId,
      ctx.deps.clock.now().toISOString(),
    ]);
  }
  await ctx.emit('channel.member.remove', p.channelId, { channelId: p.channelId, principalId: p.principalId, ...(live ? {} : { noop: true }) });
  return { changed: live };
});

export const updateMemberRole = handler(c.updateMemberRole, async (ctx, p) => {
  const a = await channelAccess(ctx.q, ctx.orgId, p.channelId, ctx.principal.id, 'read', { lock: true });
  if (a.channel.kind === 'dm') throw conflict(`${p.channelId} is a DM: its members are equals, with no roles to change`);
  if (a.role === null) throw notMember(p.channelId);
  if (a.channel.archived_at !== null) throw archived(p.channelId);
  if (!managesChannel(a.role)) throw conflict(`only an owner or admin of ${p.channelId} changes roles; ask one of them`);
  const target = await memberRow(ctx.q, ctx.orgId, p.channelId, p.principalId, true);
  if (!target || target.removed_at !== null) throw conflict(`${p.principalId} is not a member of ${p.channelId}: add them first (channel.addMember)`);
  const privileged = (r: string) => r === 'owner' || r === 'admin';
  if ((privileged(p.role) || privileged(target.role)) && a.role !== 'owner' && target.role !== p.role) {
    throw conflict(`only an owner of ${p.channelId} grants or takes owner and admin; ask an owner`);
  }
  const previousRole = target.role;
  const changed = target.role !== p.role;
  if (changed && target.role === 'owner') {
    const owners = await lockedOwners(ctx.q, ctx.orgId, p.channelId);
    if (owners.length <= 1) throw conflict(`${p.principalId} is the last owner of ${p.channelId}: make another member owner first, then change this role`);
  }
  const row = changed
    ? one(
        await ctx.q.query<typeof target>(
          `UPDATE channel_members SET role = $4 WHERE org_id = $1 AND channel_id = $2 AND principal_id = $3
         RETURNING principal_id, role, last_read_seq, added_by, added_at, removed_at`,
          [ctx.orgId, p.channelId, p.principalId, p.role],
        ),
      )
    : target;
  await ctx.emit('channel.member.change_role', p.channelId, {
    channelId: p.channelId,
    principalId: p.principalId,
    role: p.role,
    previousRole,
    ...(changed ? {} : { noop: true }),
  });
  return { member: toMember(row), changed };
});
