import { badRequest, conflict } from '../../../protocol/errors.js';
import { channel as c } from '../../../protocol/methods/channel.js';
import { handler } from '../../core/handler.js';
import { messageAccess } from '../model.js';
import { channelAccess, managesChannel } from './access.js';
import { channelView, memberRow, readMarks } from './model.js';

/*
 * channel.update (topic by any member; the rest by owners and admins; an archived channel takes only
 * archived:false) and the read marker: markRead moves it forward only, markUnreadFrom sets it below a message.
 */

export const update = handler(c.update, async (ctx, p) => {
  const a = await channelAccess(ctx.q, ctx.orgId, p.channelId, ctx.principal.id, 'read', { lock: true });
  const ch = a.channel;
  if (a.role === null) throw conflict(`you are not a member of ${p.channelId}: join it first (channel.addMember with your own id)`);
  const named = ch.kind === 'public' || ch.kind === 'private';
  if (p.name !== undefined && !named) throw badRequest('name', `a ${ch.kind === 'dm' ? 'DM' : 'group conversation'} has no name (a group has a title)`);
  if (p.title !== undefined && ch.kind !== 'group') throw badRequest('title', 'only a group conversation has a title (a channel has a name)');
  if (p.archived !== undefined && ch.kind === 'dm') throw badRequest('archived', 'a DM is never archived');
  const isArchived = ch.archived_at !== null;
  const wanted: Record<string, [boolean, string]> = {
    name: [p.name !== undefined && p.name !== ch.name, 'name'],
    title: [p.title !== undefined && p.title !== ch.title, 'title'],
    topic: [p.topic !== undefined && p.topic !== ch.topic, 'topic'],
    postingPolicy: [p.postingPolicy !== undefined && p.postingPolicy !== ch.posting_policy, 'posting_policy'],
    archived: [p.archived !== undefined && p.archived !== isArchived, 'archived_at'],
  };
  const fields = Object.keys(wanted).filter((k) => wanted[k][0]);
  if (isArchived && !(p.archived === false) && fields.length > 0) {
    throw conflict(`${p.channelId} is archived: unarchive it first (channel.update archived:false, by an owner or admin)`);
  }
  if (fields.length > 0 && a.role === 'observer') throw conflict(`you are an observer of ${p.channelId}: observers only read and react`);
  const managed = fields.filter((f) => f !== 'topic');
  if (managed.length > 0 && !managesChannel(a.role)) {
    throw conflict(`only an owner or admin of ${p.channelId} changes its ${managed.join(', ')} (any member changes the topic)`);
  }
  // A live channel's name is unique: a rename, or unarchiving under a name taken meanwhile, is refused.
  const name = p.name ?? ch.name;
  if (named && (wanted.name[0] || (wanted.archived[0] && p.archived === false))) {
    const [taken] = await ctx.q.query<{ channel_id: string }>(
      'SELECT channel_id FROM channels WHERE org_id = $1 AND name = $2 AND archived_at IS NULL AND channel_id <> $3',
      [ctx.orgId, name, p.channelId],
    );
    if (taken) throw conflict(`the name ${name} is taken by a live channel: choose another name`);
  }
  if (fields.length > 0) {
    const at = ctx.deps.clock.now().toISOString();
    await ctx.q.query(
      `UPDATE channels SET name = $3, title = $4, topic = $5, posting_policy = $6,
              archived_at = CASE WHEN $7::boolean IS NULL THEN archived_at WHEN $7 THEN coalesce(archived_at, $8::timestamptz) END,
              updated_at = $8
        WHERE org_id = $1 AND channel_id = $2`,
      [ctx.orgId, p.channelId, name, p.title ?? ch.title, p.topic ?? ch.topic, p.postingPolicy ?? ch.posting_policy, p.archived ?? null, at],
    );
  }
  const view = await channelView(ctx.q, ctx.orgId, p.channelId, ctx.principal.id);
  await ctx.emit('channel.channel.update', p.channelId, {
    channelId: p.channelId,
    fields,
    archived: view.archived,
    postingPolicy: view.postingPolicy,
    ...(fields.length ? {} : { noop: true }),
  });
  return { channel: view, changed: fields.length > 0 };
});

/** The caller's member row, locked, or CONFLICT when the caller is not in the channel. */
async function myMarker(q: Parameters<typeof memberRow>[0], orgId: string, channelId: string, me: string): Promise<number> {
  const row = await memberRow(q, orgId, channelId, me, true);
  if (!row || row.removed_at !== null)
    throw conflict(`you are not a member of ${channelId}: only members have a read marker (channel.addMember with your own id)`);
  return Number(row.last_read_seq);
}

async function setMarker(q: Parameters<typeof memberRow>[0], orgId: string, channelId: string, me: string, seq: number): Promise<void> {
  await q.query('UPDATE channel_members SET last_read_seq = $4 WHERE org_id = $1 AND channel_id = $2 AND principal_id = $3', [orgId, channelId, me, seq]);
}

export const markRead = handler(c.markRead, async (ctx, p) => {
  const a = await channelAccess(ctx.q, ctx.orgId, p.channelId, ctx.principal.id, 'read');
  const marker = await myMarker(ctx.q, ctx.orgId, p.channelId, ctx.principal.id);
  const lastSeq = Number(a.channel.last_seq);
  const seq = p.seq ?? lastSeq;
  if (seq > lastSeq) throw badRequest('seq', `${seq} is past the channel's latest seq ${lastSeq}`);
  const changed = seq > marker;
  if (changed) await setMarker(ctx.q, ctx.orgId, p.channelId, ctx.principal.id, seq);
  const marks = await readMarks(ctx.q, ctx.orgId, p.channelId, ctx.principal.id, changed ? seq : marker);
  await ctx.emit('channel.read.mark', p.channelId, { channelId: p.channelId, lastReadSeq: marks.lastReadSeq, ...(changed ? {} : { noop: true }) });
  return { ...marks, changed };
});

export const markUnreadFrom = handler(c.markUnreadFrom, async (ctx, p) => {
  const { message } = await messageAccess(ctx.q, ctx.orgId, p.messageId, ctx.principal.id, 'read');
  if (message.seq === null) throw conflict(`message ${p.messageId} is not posted yet (${message.status}): only posted messages have a place to mark from`);
  const marker = await myMarker(ctx.q, ctx.orgId, message.channel_id, ctx.principal.id);
  const seq = Number(message.seq) - 1;
  const changed = seq !== marker;
  if (changed) await setMarker(ctx.q, ctx.orgId, message.channel_id, ctx.principal.id, seq);
  const marks = await readMarks(ctx.q, ctx.orgId, message.channel_id, ctx.principal.id, seq);
  await ctx.emit('channel.read.unmark', message.channel_id, {
    channelId: message.channel_id,
    messageId: p.messageId,
    lastReadSeq: seq,
    ...(changed ? {} : { noop: true }),
  });
  return { ...marks, changed };
});
