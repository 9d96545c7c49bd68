import { badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { channel as c } from '../../../protocol/methods/channel.js';
import type { Queryable } from '../../../db/types.js';
import { getMembers } from '../../people/index.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import type { ChannelKind, ChannelRole } from './access.js';
import { addMembers, channelView } from './model.js';

/*
 * channel.create, createConversation and resolveOrCreateDm. A taken name and a DM's member set are settled by the
 * unique indexes (channels_live_name, channels_dm_key): an insert that meets one does nothing, so two concurrent
 * resolves of the same DM end with one channel (the second reads the first's row once it commits).
 */

/** The org's members among `ids`, or NOT_FOUND naming the first unknown; an archived member is CONFLICT. */
export async function requireMembers(q: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, 'human' | 'agent'>> {
  const found = new Map((await getMembers(q, orgId, ids)).map((m) => [m.id, m]));
  for (const id of ids) {
    const m = found.get(id);
    if (!m) throw notFound(`member ${id}`);
    if (m.status === 'archived') throw conflict(`member ${id} is archived: restore them first (member.update) or leave them out`);
  }
  return new Map([...found].map(([id, m]) => [id, m.kind]));
}

interface NewChannel {
  kind: ChannelKind;
  name?: string;
  title?: string;
  topic?: string;
  postingPolicy?: 'everyone' | 'admins';
  dmKey?: string;
}

/** Insert the channel unless a live one holds its name or DM key; undefined then. */
async function insertChannel(ctx: HandlerCtx, ch: NewChannel, at: string): Promise<string | undefined> {
  const target = ch.dmKey !== undefined ? '(org_id, dm_key) WHERE dm_key IS NOT NULL' : '(org_id, name) WHERE name IS NOT NULL AND archived_at IS NULL';
  const [row] = await ctx.q.query<{ channel_id: string }>(
    `INSERT INTO channels (org_id, channel_id, kind, name, title, topic, posting_policy, dm_key, created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
     ON CONFLICT ${ch.kind === 'group' ? '' : target} DO NOTHING RETURNING channel_id`,
    [
      ctx.orgId,
      newId('ch'),
      ch.kind,
      ch.name ?? null,
      ch.title ?? null,
      ch.topic ?? '',
      ch.postingPolicy ?? 'everyone',
      ch.dmKey ?? null,
      ctx.principal.id,
      at,
    ],
  );
  return row?.channel_id;
}

const withOwner = (me: string, others: readonly string[], role: ChannelRole = 'member') => [
  { id: me, role: 'owner' as ChannelRole },
  ...others.filter((id) => id !== me).map((id) => ({ id, role })),
];

export const create = handler(c.create, async (ctx, p) => {
  const at = ctx.deps.clock.now().toISOString();
  const others = p.memberIds.filter((id) => id !== ctx.principal.id);
  await requireMembers(ctx.q, ctx.orgId, others);
  const kind = p.private ? 'private' : 'public';
  const channelId = await insertChannel(ctx, { kind, name: p.name, topic: p.topic, postingPolicy: p.postingPolicy }, at);
  if (!channelId) {
    throw conflict(`the name ${p.name} is taken by a live channel: choose another name, or join that one (channel.addMember with your own id)`);
  }
  await addMembers(ctx.q, ctx.orgId, channelId, withOwner(ctx.principal.id, others), ctx.principal.id, at, 0);
  const channel = await channelView(ctx.q, ctx.orgId, channelId, ctx.principal.id);
  await ctx.emit('channel.channel.create', channelId, { channelId, kind, postingPolicy: p.postingPolicy, memberCount: channel.memberCount });
  return { channel, changed: true };
});

export const createConversation = handler(c.createConversation, async (ctx, p) => {
  const at = ctx.deps.clock.now().toISOString();
  const others = p.principalIds.filter((id) => id !== ctx.principal.id);
  if (others.length < 2) throw badRequest('principalIds', 'must name at least 2 others besides you (for one other, open a DM: channel.resolveOrCreateDm)');
  await requireMembers(ctx.q, ctx.orgId, others);
  const channelId = (await insertChannel(ctx, { kind: 'group', title: p.title }, at))!;
  await addMembers(ctx.q, ctx.orgId, channelId, withOwner(ctx.principal.id, others), ctx.principal.id, at, 0);
  const channel = await channelView(ctx.q, ctx.orgId, channelId, ctx.principal.id);
  await ctx.emit('channel.conversation.create', channelId, { channelId, kind: 'group', memberCount: channel.memberCount });
  return { channel, changed: true };
});

export const resolveOrCreateDm = handler(c.resolveOrCreateDm, async (ctx, p) => {
  const at = ctx.deps.clock.now().toISOString();
  const others = p.principalIds.filter((id) => id !== ctx.principal.id);
  await requireMembers(ctx.q, ctx.orgId, others);
  // The set's one key: sorted ids, the caller included (ids are [A-Za-z0-9_], so a comma cannot occur in one).
  const dmKey = [...new Set([ctx.principal.id, ...others])].sort().join(',');
  const find = async () =>
    (await ctx.q.query<{ channel_id: string }>('SELECT channel_id FROM channels WHERE org_id = $1 AND dm_key = $2', [ctx.orgId, dmKey]))[0]?.channel_id;
  let channelId = await find();
  let created = false;
  if (!channelId) {
    const inserted = await insertChannel(ctx, { kind: 'dm', dmKey }, at);
    if (inserted) {
      created = true;
      // Everyone in a DM is an equal member: nobody manages it, its set is fixed.
      const members = dmKey.split(',').map((id): { id: string; role: ChannelRole } => ({ id, role: 'member' }));
      await addMembers(ctx.q, ctx.orgId, inserted, members, ctx.principal.id, at, 0);
    }
    // Not inserted: a concurrent call created it and committed (this insert waited for it), so read it now.
    channelId = inserted ?? (await find());
    if (!channelId) throw conflict('a concurrent call is creating this DM; retry');
  }
  const channel = await channelView(ctx.q, ctx.orgId, channelId, ctx.principal.id);
  await ctx.emit('channel.dm.resolve', channelId, { channelId, memberCount: channel.memberCount, ...(created ? {} : { noop: true }) });
  return { channel, changed: created };
});
