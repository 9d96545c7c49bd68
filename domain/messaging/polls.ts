import { badRequest, conflict } from '../../protocol/errors.js';
import { messagingLifecycle as c } from '../../protocol/methods/messaging/lifecycle.js';
import { one } from '../../db/types.js';
import { channelAccess } from './channel/access.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { postMessage } from './post.js';
import { checkPostingPolicy } from './send.js';
import { lockedMessage, requirePosted, shapeOf } from './writes.js';

/*
 * Polls: createPoll posts a message of kind poll (its text the question) and its options; votePoll replaces the
 * caller's ballot. A poll is closed once closed_at is set or closesAt has passed (read from the clock). Events
 * carry counts only: never the question, an option, or which option anyone chose.
 */

const YEAR_MS = 366 * 24 * 3600 * 1000;

export const createPoll = handler(c.createPoll, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const distinct = new Set(p.options.map((o) => o.trim().toLowerCase()));
  if (distinct.size !== p.options.length) throw badRequest('options', 'must not repeat an option');
  const closesAt = p.closesAt === undefined ? null : new Date(p.closesAt);
  if (closesAt && closesAt.getTime() <= now.getTime()) throw badRequest('closesAt', 'must be in the future');
  if (closesAt && closesAt.getTime() - now.getTime() > YEAR_MS) throw badRequest('closesAt', 'must be within a year from now');
  checkPostingPolicy(await channelAccess(ctx.q, ctx.orgId, p.channelId, ctx.principal.id, 'write'));
  const { messageId, seq } = await postMessage(ctx.q, ctx.orgId, { channelId: p.channelId, authorId: ctx.principal.id, text: p.question, kind: 'poll', now });
  await ctx.q.query('INSERT INTO message_polls (org_id, message_id, multiple, anonymous, closes_at) VALUES ($1, $2, $3, $4, $5)', [
    ctx.orgId,
    messageId,
    p.multiple,
    p.anonymous,
    closesAt?.toISOString() ?? null,
  ]);
  const optionIds = p.options.map(() => newId('opt'));
  await ctx.q.query(
    `INSERT INTO message_poll_options (org_id, option_id, message_id, position, text)
     SELECT $1, o.id, $2, o.n::int - 1, o.text FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS o(id, text, n)`,
    [ctx.orgId, messageId, optionIds, p.options],
  );
  const shape = await shapeOf(ctx, messageId);
  await ctx.emit('messaging.poll.create', messageId, {
    channelId: p.channelId,
    messageId,
    seq,
    options: p.options.length,
    multiple: p.multiple,
    anonymous: p.anonymous,
    closesAt: closesAt?.toISOString() ?? null,
  });
  return { message: shape, changed: true };
});

interface PollState {
  multiple: boolean;
  anonymous: boolean;
  closed: boolean;
  closes_at: string | Date | null;
  closed_at: string | Date | null;
}

export const votePoll = handler(c.votePoll, async (ctx, p) => {
  const ballot = [...new Set(p.optionIds)];
  if (ballot.length !== p.optionIds.length) throw badRequest('optionIds', 'must not repeat an option');
  const { message } = await lockedMessage(ctx, p.messageId, 'write');
  if (message.kind !== 'poll') throw badRequest('messageId', "must be a poll's message (kind poll)");
  requirePosted(message, 'vote on');
  const now = ctx.deps.clock.now();
  const [poll] = await ctx.q.query<PollState>(
    `SELECT multiple, anonymous, closes_at, closed_at, (closed_at IS NOT NULL OR (closes_at IS NOT NULL AND closes_at <= $3::timestamptz)) AS closed
       FROM message_polls WHERE org_id = $1 AND message_id = $2`,
    [ctx.orgId, p.messageId, now.toISOString()],
  );
  if (!poll) throw badRequest('messageId', "must be a poll's message (kind poll)");
  if (poll.closed) {
    const at = new Date((poll.closed_at ?? poll.closes_at) as string).toISOString();
    throw conflict(`poll ${p.messageId} closed at ${at}: its votes are final (start a new poll with messaging.createPoll)`);
  }
  if (!poll.multiple && ballot.length > 1) throw badRequest('optionIds', 'this poll is single-choice: give one option (or none to take your vote back)');
  const options = await ctx.q.query<{ option_id: string }>('SELECT option_id FROM message_poll_options WHERE org_id = $1 AND message_id = $2', [
    ctx.orgId,
    p.messageId,
  ]);
  const known = new Set(options.map((o) => o.option_id));
  const unknown = ballot.find((id) => !known.has(id));
  if (unknown) throw badRequest('optionIds', `${unknown} is not an option of this poll`);

  const mine = await ctx.q.query<{ option_id: string }>(
    'SELECT option_id FROM message_poll_votes WHERE org_id = $1 AND message_id = $2 AND principal_id = $3',
    [ctx.orgId, p.messageId, ctx.principal.id],
  );
  const before = new Set(mine.map((v) => v.option_id));
  const changed = before.size !== ballot.length || ballot.some((id) => !before.has(id));
  if (changed) {
    await ctx.q.query('DELETE FROM message_poll_votes WHERE org_id = $1 AND message_id = $2 AND principal_id = $3 AND NOT (option_id = ANY($4::text[]))', [
      ctx.orgId,
      p.messageId,
      ctx.principal.id,
      ballot,
    ]);
    await ctx.q.query(
      `INSERT INTO message_poll_votes (org_id, message_id, option_id, principal_id, voted_at)
       SELECT $1, $2, o, $3, $4 FROM unnest($5::text[]) AS o ON CONFLICT DO NOTHING`,
      [ctx.orgId, p.messageId, ctx.principal.id, now.toISOString(), ballot],
    );
  }
  const count = one(
    await ctx.q.query<{ voters: number }>('SELECT count(DISTINCT principal_id)::int AS voters FROM message_poll_votes WHERE org_id = $1 AND message_id = $2', [
      ctx.orgId,
      p.messageId,
    ]),
  );
  const shape = await shapeOf(ctx, p.messageId);
  await ctx.emit('messaging.poll.vote', p.messageId, {
    channelId: message.channel_id,
    messageId: p.messageId,
    choices: ballot.length,
    voterCount: Number(count.voters),
    ...(changed ? {} : { noop: true }),
  });
  return { message: shape, changed };
});
