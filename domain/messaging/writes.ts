import { conflict } from '../../protocol/errors.js';
import type { HandlerCtx } from '../core/handler.js';
import { channelAccess, type ChannelAccess, type ChannelIntent } from './channel/access.js';
import { getMessage, messageAccess, messagesFor, type MessageRow, type MessageShape } from './model.js';

/*
 * What the lifecycle methods (schedule, edit, delete, pins, reactions, bookmarks, polls) share. Lock order, the
 * same in every writer and in the scheduled message's job: the channel row first, then the message row.
 */

/** The message as the caller sees it now; built before the event, since the transaction closes at emit. */
export async function shapeOf(ctx: HandlerCtx, messageId: string): Promise<MessageShape> {
  const row = await getMessage(ctx.q, ctx.orgId, messageId);
  const [shape] = await messagesFor(ctx.q, ctx.orgId, [row], ctx.principal.id, { now: ctx.deps.clock.now() });
  return shape;
}

/**
 * The message the caller may act on with `intent`, re-read under its lock (and its channel's first when
 * `lockChannel`, for a per-channel limit): NOT_FOUND when the caller cannot see it (another's scheduled one too).
 */
export async function lockedMessage(
  ctx: HandlerCtx,
  messageId: string,
  intent: ChannelIntent,
  opts: { lockChannel?: boolean } = {},
): Promise<{ message: MessageRow; access: ChannelAccess }> {
  const { message, access } = await messageAccess(ctx.q, ctx.orgId, messageId, ctx.principal.id, intent);
  const locked = opts.lockChannel ? await channelAccess(ctx.q, ctx.orgId, message.channel_id, ctx.principal.id, intent, { lock: true }) : access;
  return { message: await getMessage(ctx.q, ctx.orgId, messageId, { lock: true }), access: locked };
}

/** A reaction, pin or vote needs a posted message: say what it is instead, and the way forward. */
export function requirePosted(message: MessageRow, act: string): void {
  const id = message.message_id;
  if (message.status === 'posted') return;
  if (message.status === 'deleted') throw conflict(`message ${id} is deleted: nothing is left to ${act}`);
  if (message.status === 'scheduled') throw conflict(`message ${id} is scheduled, not posted yet: ${act} it once it posts (or edit its postAt)`);
  throw conflict(`message ${id} failed to post (${message.failure ?? 'no reason recorded'}): schedule or send it again`);
}

export const countNoun = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
