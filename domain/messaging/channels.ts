import { messagingCore as c } from '../../protocol/methods/messaging/core.js';
import { READABLE_CHANNELS_SQL } from './channel/access.js';
import { channelsView } from './channel/model.js';
import { decodeCursor, encodeCursor, strings } from '../core/cursor.js';
import { handler } from '../core/handler.js';

/*
 * messaging.channels: the channels the caller is in (or also every public one), by name (a group by its title; DMs,
 * which have neither, first), with the caller's marker and unread and mention counts: two queries a page, the
 * page's ids, then their views with every count in one statement (domain/messaging/channel/model.ts).
 */

export const channels = handler(c.channels, async (ctx, p) => {
  const params: unknown[] = [ctx.orgId, ctx.principal.id];
  const visible =
    p.membership === 'all'
      ? READABLE_CHANNELS_SQL('$1', '$2')
      : `(SELECT channel_id FROM channel_members WHERE org_id = $1 AND principal_id = $2 AND removed_at IS NULL)`;
  const where = ['c.org_id = $1'];
  if (p.kinds) where.push(`c.kind = ANY($${params.push(p.kinds)}::text[])`);
  if (!p.includeArchived) where.push('c.archived_at IS NULL');
  if (p.query !== undefined) where.push(`left(lower(coalesce(c.name, c.title, '')), $${params.push(p.query.length)}) = lower($${params.push(p.query)})`);
  if (p.cursor !== undefined) {
    const [key, id] = decodeCursor<[string, string]>(p.cursor, 'cursor', strings(2));
    where.push(`(coalesce(c.name, c.title, ''), c.channel_id) > ($${params.push(key)}, $${params.push(id)})`);
  }
  const rows = await ctx.q.query<{ channel_id: string; sort_key: string }>(
    `SELECT c.channel_id, coalesce(c.name, c.title, '') AS sort_key
       FROM channels c JOIN ${visible} AS v ON v.channel_id = c.channel_id
      WHERE ${where.join(' AND ')}
      ORDER BY coalesce(c.name, c.title, ''), c.channel_id LIMIT $${params.push(p.limit + 1)}`,
    params,
  );
  const shown = rows.slice(0, p.limit);
  const views = await channelsView(
    ctx.q,
    ctx.orgId,
    shown.map((r) => r.channel_id),
    ctx.principal.id,
  );
  const last = shown[shown.length - 1];
  return {
    channels: shown.flatMap((r) => views.get(r.channel_id) ?? []),
    nextCursor: rows.length > p.limit && last ? encodeCursor([last.sort_key, last.channel_id]) : null,
  };
});
