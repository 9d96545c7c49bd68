import { conflict } from '../../protocol/errors.js';
import { MAX_PINS, messagingLifecycle as c } from '../../protocol/methods/messaging/lifecycle.js';
import { one, type Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { lockedMessage, requirePosted, shapeOf } from './writes.js';

/*
 * messaging.pin / unpin: a pin is the message's pinned_at (messaging.history pinned reads them). Members but not
 * observers pin; the channel row is locked first so two pins cannot both take the 100th place.
 */

async function pinnedCount(q: Queryable, orgId: string, channelId: string): Promise<number> {
  const row = one(
    await q.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE org_id = $1 AND channel_id = $2 AND pinned_at IS NOT NULL AND status = 'posted'`,
      [orgId, channelId],
    ),
  );
  return Number(row.n);
}

export const pin = handler(c.pin, async (ctx, p) => {
  const { message } = await lockedMessage(ctx, p.messageId, 'write', { lockChannel: true });
  const channelId = message.channel_id;
  if (message.status === 'posted' && message.pinned_at !== null) {
    const pins = await pinnedCount(ctx.q, ctx.orgId, channelId);
    const shape = await shapeOf(ctx, p.messageId);
    await ctx.emit('messaging.message.pin', p.messageId, { channelId, messageId: p.messageId, pins, noop: true });
    return { message: shape, changed: false };
  }
  requirePosted(message, 'pin');
  const pins = await pinnedCount(ctx.q, ctx.orgId, channelId);
  if (pins >= MAX_PINS) throw conflict(`${channelId} already has ${MAX_PINS} pinned messages, the most it may: unpin one first (messaging.unpin)`);
  const at = ctx.deps.clock.now().toISOString();
  await ctx.q.query('UPDATE messages SET pinned_at = $3, pinned_by = $4 WHERE org_id = $1 AND message_id = $2', [ctx.orgId, p.messageId, at, ctx.principal.id]);
  const shape = await shapeOf(ctx, p.messageId);
  await ctx.emit('messaging.message.pin', p.messageId, { channelId, messageId: p.messageId, pins: pins + 1 });
  return { message: shape, changed: true };
});

export const unpin = handler(c.unpin, async (ctx, p) => {
  const { message } = await lockedMessage(ctx, p.messageId, 'write', { lockChannel: true });
  const channelId = message.channel_id;
  const wasPinned = message.pinned_at !== null;
  if (wasPinned) await ctx.q.query('UPDATE messages SET pinned_at = NULL, pinned_by = NULL WHERE org_id = $1 AND message_id = $2', [ctx.orgId, p.messageId]);
  const pins = await pinnedCount(ctx.q, ctx.orgId, channelId);
  const shape = await shapeOf(ctx, p.messageId);
  await ctx.emit('messaging.message.unpin', p.messageId, { channelId, messageId: p.messageId, pins, ...(wasPinned ? {} : { noop: true }) });
  return { message: shape, changed: wasPinned };
});
