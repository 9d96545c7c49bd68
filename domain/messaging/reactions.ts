import { conflict } from '../../protocol/errors.js';
import { MAX_DISTINCT_REACTIONS, messagingLifecycle as c } from '../../protocol/methods/messaging/lifecycle.js';
import { checkEmoji } from '../../protocol/emoji.js';
import { one } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { lockedMessage, requirePosted, shapeOf } from './writes.js';

/*
 * messaging.react: one row per (message, emoji, principal). Observers react too. The message row is locked, so
 * two new emoji cannot both take the 50th place. The event says on/off and counts, never the emoji.
 */

export const react = handler(c.react, async (ctx, p) => {
  const emoji = checkEmoji(p.emoji);
  const { message } = await lockedMessage(ctx, p.messageId, 'react');
  requirePosted(message, 'react to');
  const { channel_id: channelId } = message;
  const state = one(
    await ctx.q.query<{ mine: boolean; distinct: number; known: boolean }>(
      `SELECT bool_or(principal_id = $4 AND emoji = $3) IS TRUE AS mine, count(DISTINCT emoji)::int AS distinct,
            bool_or(emoji = $3) IS TRUE AS known
       FROM message_reactions WHERE org_id = $1 AND message_id = $2`,
      [ctx.orgId, p.messageId, emoji, ctx.principal.id],
    ),
  );
  let changed = state.mine !== p.on;
  if (changed && p.on) {
    if (!state.known && state.distinct >= MAX_DISTINCT_REACTIONS) {
      throw conflict(`message ${p.messageId} already has ${MAX_DISTINCT_REACTIONS} different reactions, the most it may: react with one of those`);
    }
    await ctx.q.query(
      `INSERT INTO message_reactions (org_id, message_id, emoji, principal_id, reacted_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
      [ctx.orgId, p.messageId, emoji, ctx.principal.id, ctx.deps.clock.now().toISOString()],
    );
  } else if (changed) {
    const gone = await ctx.q.query('DELETE FROM message_reactions WHERE org_id = $1 AND message_id = $2 AND emoji = $3 AND principal_id = $4 RETURNING 1', [
      ctx.orgId,
      p.messageId,
      emoji,
      ctx.principal.id,
    ]);
    changed = gone.length > 0;
  }
  const after = one(
    await ctx.q.query<{ count: number; distinct: number }>(
      `SELECT count(*) FILTER (WHERE emoji = $3)::int AS count, count(DISTINCT emoji)::int AS distinct
       FROM message_reactions WHERE org_id = $1 AND message_id = $2`,
      [ctx.orgId, p.messageId, emoji],
    ),
  );
  const shape = await shapeOf(ctx, p.messageId);
  await ctx.emit('messaging.reaction.set', p.messageId, {
    channelId,
    messageId: p.messageId,
    on: p.on,
    count: Number(after.count),
    distinct: Number(after.distinct),
    ...(changed ? {} : { noop: true }),
  });
  return { message: shape, changed };
});
