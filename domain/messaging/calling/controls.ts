import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import { conflict } from '../../../protocol/errors.js';
import { calling as c } from '../../../protocol/methods/calling.js';
import { handler } from '../../core/handler.js';
import { messageByIdempotencyId } from '../calls.js';
import { getMessage, messagesFor } from '../model.js';
import { postMessage } from '../post.js';
import { limitReactions } from './limits.js';
import { afterCommitMedia } from './media.js';
import { callAccess, callShape, participantRow, requireHost, requireJoined } from './model.js';

/*
 * In the call: mute (the host mutes others, nobody unmutes anyone else), lock, hands (first come, first served),
 * reactions (rate limited per caller) and the in-call chat (replies in the root message's thread).
 */

export const setMute = handler(c.setMute, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id, { lock: true });
  requireJoined(a, 'mute');
  const target = p.principalId ?? ctx.principal.id;
  const self = target === ctx.principal.id;
  if (!self) {
    requireHost(a, 'mute others');
    if (!p.muted) {
      const who = target === 'all' ? 'each participant' : target;
      throw conflict(`no remote unmute: only ${who} can unmute themselves in call ${a.call.call_id}; ask them to`);
    }
  }
  let changedIds: string[];
  if (target === 'all') {
    const rows = await ctx.q.query<{ principal_id: string }>(
      `UPDATE call_participants SET muted = true WHERE org_id = $1 AND call_id = $2 AND state = 'joined' AND principal_id <> $3 AND NOT muted
       RETURNING principal_id`,
      [ctx.orgId, a.call.call_id, ctx.principal.id],
    );
    changedIds = rows.map((r) => r.principal_id).sort();
  } else {
    const row = self ? a.me : await participantRow(ctx.q, ctx.orgId, a.call.call_id, target);
    if (row?.state !== 'joined') throw conflict(`${target} is not in call ${a.call.call_id}: only participants in the call are muted`);
    changedIds = row.muted === p.muted ? [] : [target];
    if (changedIds.length) {
      await ctx.q.query('UPDATE call_participants SET muted = $4 WHERE org_id = $1 AND call_id = $2 AND principal_id = $3', [
        ctx.orgId,
        a.call.call_id,
        target,
        p.muted,
      ]);
    }
  }
  // The host's mute reaches the media server; one's own mute and unmute are the client's.
  if (!self && changedIds.length) afterCommitMedia(ctx, { op: 'mute', callId: a.call.call_id, principalIds: changedIds });
  const shape = await callShape(ctx.q, ctx.orgId, a.call, now);
  await ctx.emit('calling.participant.set_mute', a.call.call_id, {
    callId: a.call.call_id,
    principalId: target,
    muted: p.muted,
    mutedCount: changedIds.length,
    ...(changedIds.length === 0 ? { noop: true } : {}),
  });
  return { call: shape, changed: changedIds.length > 0 };
});

export const setLock = handler(c.setLock, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id, { lock: true });
  requireHost(a, p.locked ? 'lock the call' : 'unlock the call');
  const changed = a.call.locked !== p.locked;
  if (changed) await ctx.q.query('UPDATE calls SET locked = $3 WHERE org_id = $1 AND call_id = $2', [ctx.orgId, a.call.call_id, p.locked]);
  const shape = await callShape(ctx.q, ctx.orgId, { ...a.call, locked: p.locked }, now);
  await ctx.emit('calling.call.set_lock', a.call.call_id, { callId: a.call.call_id, locked: p.locked, ...(changed ? {} : { noop: true }) });
  return { call: shape, changed };
});

export const raiseHand = handler(c.raiseHand, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id, { lock: true });
  const me = requireJoined(a, 'raise your hand');
  const changed = me.hand_seq === null;
  if (changed) {
    // Under the call's lock: the next place in the queue.
    await ctx.q.query(
      `UPDATE call_participants SET hand_raised_at = $4,
              hand_seq = (SELECT coalesce(max(hand_seq), 0) + 1 FROM call_participants WHERE org_id = $1 AND call_id = $2)
        WHERE org_id = $1 AND call_id = $2 AND principal_id = $3`,
      [ctx.orgId, a.call.call_id, ctx.principal.id, now.toISOString()],
    );
  }
  const shape = await callShape(ctx.q, ctx.orgId, a.call, now);
  const position = shape.raisedHands.indexOf(ctx.principal.id) + 1;
  await ctx.emit('calling.hand.raise', a.call.call_id, { callId: a.call.call_id, principalId: ctx.principal.id, position, ...(changed ? {} : { noop: true }) });
  return { call: shape, changed };
});

export const lowerHand = handler(c.lowerHand, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id, { lock: true });
  requireJoined(a, 'lower a hand');
  const target = p.principalId ?? ctx.principal.id;
  const self = target === ctx.principal.id;
  if (!self) requireHost(a, "lower others' hands");
  const row = self ? a.me : await participantRow(ctx.q, ctx.orgId, a.call.call_id, target);
  if (row?.state !== 'joined') throw conflict(`${target} is not in call ${a.call.call_id}: no hand to lower`);
  const changed = row.hand_seq !== null;
  if (changed) {
    await ctx.q.query('UPDATE call_participants SET hand_raised_at = NULL, hand_seq = NULL WHERE org_id = $1 AND call_id = $2 AND principal_id = $3', [
      ctx.orgId,
      a.call.call_id,
      target,
    ]);
  }
  const shape = await callShape(ctx.q, ctx.orgId, a.call, now);
  await ctx.emit('calling.hand.lower', a.call.call_id, { callId: a.call.call_id, principalId: target, byHost: !self, ...(changed ? {} : { noop: true }) });
  return { call: shape, changed };
});

export const react = handler(
  c.react,
  async (ctx, p) => {
    const now = ctx.deps.clock.now();
    const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id, { lock: true });
    requireJoined(a, 'react');
    // Only the last reaction is kept: the stream frame tells the others to look.
    await ctx.q.query('UPDATE call_participants SET last_reaction = $4, last_reaction_at = $5 WHERE org_id = $1 AND call_id = $2 AND principal_id = $3', [
      ctx.orgId,
      a.call.call_id,
      ctx.principal.id,
      p.emoji,
      now.toISOString(),
    ]);
    const shape = await callShape(ctx.q, ctx.orgId, a.call, now);
    await ctx.emit('calling.reaction.send', a.call.call_id, { callId: a.call.call_id, principalId: ctx.principal.id });
    return { call: shape, changed: true };
  },
  { limit: limitReactions },
);

export const chat = handler(c.chat, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id, { lock: true });
  requireJoined(a, 'chat');
  const channelId = a.call.channel_id;
  if (a.channel?.role === 'observer')
    throw conflict(`you are an observer of ${channelId}: observers only read and react; an owner or admin may change your role`);
  if (a.channel?.archived) throw conflict(`${channelId} is archived: its calls take no chat; unarchive it first (channel.update archived:false)`);
  const paramsHash = sha256Hex(canonicalJson({ callId: a.call.call_id, text: p.text }));
  if (p.idempotencyId !== undefined) {
    const earlier = await messageByIdempotencyId(ctx.q, ctx.orgId, channelId, p.idempotencyId);
    if (earlier) {
      if (earlier.author_id !== ctx.principal.id || earlier.thread_id !== a.call.root_message_id || earlier.params_hash !== paramsHash) {
        throw conflict(
          `idempotencyId ${JSON.stringify(p.idempotencyId)} already names another message in ${channelId}: send this one with a new idempotencyId`,
        );
      }
      const [message] = await messagesFor(ctx.q, ctx.orgId, [earlier], ctx.principal.id, { now });
      await ctx.emit('calling.chat.send', a.call.call_id, { callId: a.call.call_id, channelId, messageId: earlier.message_id, noop: true });
      return { message, changed: false, replayed: true };
    }
  }
  const posted = await postMessage(ctx.q, ctx.orgId, {
    channelId,
    authorId: ctx.principal.id,
    text: p.text,
    threadId: a.call.root_message_id,
    idempotencyId: p.idempotencyId ?? null,
    paramsHash,
    now,
  });
  const [message] = await messagesFor(ctx.q, ctx.orgId, [await getMessage(ctx.q, ctx.orgId, posted.messageId)], ctx.principal.id, { now });
  await ctx.emit('calling.chat.send', a.call.call_id, {
    callId: a.call.call_id,
    channelId,
    messageId: posted.messageId,
    seq: posted.seq,
    threadId: a.call.root_message_id,
  });
  return { message, changed: true };
});
