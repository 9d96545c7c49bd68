import type { z } from 'zod';
import { badRequest } from '../../protocol/errors.js';
import { messagingCore as c } from '../../protocol/methods/messaging/core.js';
import type { Queryable } from '../../db/types.js';
import { channelAccess, managesChannel } from './channel/access.js';
import { decodeCursor, encodeCursor } from '../core/cursor.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { bookmarksPage, pinnedPage, scheduledPage, searchPage } from './history-lists.js';
import { MESSAGE_COLUMNS, messageAccess, messagesFor, type MessageRow } from './model.js';

/*
 * messaging.history: one mode per call (a channel, a thread, one message, a search, pins, bookmarks, your scheduled
 * messages). An R method runs outside any transaction, so a long-poll (after + waitMs) holds none while it waits:
 * it waits on the org's live ledger (domain/stream) for an event naming the channel, then reads again.
 */

type Params = z.output<typeof c.history.params>;
export type HistoryResult = z.infer<NonNullable<typeof c.history.result>>;
type Mode = 'channel' | 'thread' | 'message' | 'search' | 'scheduled' | 'pinned' | 'bookmarks';

const ONE_OF = 'give exactly one of channelId, threadId, messageId, query or scheduled';
/** A waiting poll reads again at least this often, should a wake-up be lost. */
const WAIT_RECHECK_MS = 2_000;

function modeOf(p: Params): Mode {
  const given = (keys: readonly (keyof Params)[]) => keys.filter((k) => p[k] !== undefined);
  if (p.query !== undefined) {
    const extra = given(['threadId', 'messageId', 'scheduled', 'pinned', 'bookmarks', 'before', 'after', 'around', 'waitMs'])[0];
    if (extra) throw badRequest(extra, 'not with query (a query searches the channels you may read, or the one channelId names)');
    return 'search';
  }
  const queryOnly = given(['from', 'since', 'until'])[0];
  if (queryOnly) throw badRequest(queryOnly, 'only with query');
  const lists = given(['pinned', 'bookmarks']);
  if (lists.length && p.channelId === undefined) throw badRequest(lists[0], 'only with channelId');
  const primaries = given(['channelId', 'threadId', 'messageId', 'scheduled']);
  if (primaries.length === 0) throw badRequest('channelId', ONE_OF);
  if (primaries.length > 1) throw badRequest(primaries[1], `${ONE_OF} (${primaries[0]} is given)`);
  if (lists.length > 1) throw badRequest('bookmarks', 'not with pinned: ask for one list at a time');
  const positional = given(['before', 'after', 'around']);
  if (positional.length && (p.channelId === undefined || lists.length)) throw badRequest(positional[0], 'only with channelId (its messages)');
  if (positional.length > 1) throw badRequest(positional[1], `not with ${positional[0]}: give one of before, after or around`);
  if (positional.length && p.cursor !== undefined) throw badRequest('cursor', `not with ${positional[0]}: a cursor carries its own position`);
  if (p.waitMs !== undefined && p.after === undefined) throw badRequest('waitMs', 'only with after (wait for a message above it)');
  if (lists.length) return lists[0] as Mode;
  return primaries[0] === 'channelId' ? 'channel' : primaries[0] === 'threadId' ? 'thread' : primaries[0] === 'messageId' ? 'message' : 'scheduled';
}

/** Where a channel page starts: below a seq (newest first) or above one (oldest first). */
type Position = { dir: 'before' | 'after'; seq: number | null } | { dir: 'around'; seq: number };

function positionOf(p: Params): Position {
  if (p.cursor !== undefined) {
    const [dir, seq] = decodeCursor<['b' | 'a', number]>(
      p.cursor,
      'cursor',
      (v) => v.length === 2 && (v[0] === 'b' || v[0] === 'a') && Number.isSafeInteger(v[1]),
      'history returned',
    );
    return { dir: dir === 'b' ? 'before' : 'after', seq };
  }
  if (p.around !== undefined) return { dir: 'around', seq: p.around };
  if (p.after !== undefined) return { dir: 'after', seq: p.after };
  return { dir: 'before', seq: p.before ?? null };
}

/** What the channel shows: posted messages and tombstones, thread replies only when also sent to the channel. */
const CHANNEL_ROWS = `SELECT ${MESSAGE_COLUMNS} FROM messages m
  WHERE m.org_id = $1 AND m.channel_id = $2 AND m.seq IS NOT NULL AND (m.thread_id IS NULL OR m.also_to_channel)`;

async function channelRows(q: Queryable, orgId: string, channelId: string, pos: Position, limit: number): Promise<{ rows: MessageRow[]; more: boolean }> {
  if (pos.dir === 'around') {
    const newer = await q.query<MessageRow>(`${CHANNEL_ROWS} AND m.seq > $3 ORDER BY m.seq LIMIT $4`, [orgId, channelId, pos.seq, Math.floor(limit / 2)]);
    const older = await q.query<MessageRow>(`${CHANNEL_ROWS} AND m.seq <= $3 ORDER BY m.seq DESC LIMIT $4`, [
      orgId,
      channelId,
      pos.seq,
      limit - newer.length + 1,
    ]);
    const more = older.length > limit - newer.length;
    return { rows: [...newer.reverse(), ...older.slice(0, limit - newer.length)], more };
  }
  const down = pos.dir === 'before';
  const bound = pos.seq === null ? '' : `AND m.seq ${down ? '<' : '>'} $4`;
  const rows = await q.query<MessageRow>(`${CHANNEL_ROWS} ${bound} ORDER BY m.seq ${down ? 'DESC' : 'ASC'} LIMIT $3`, [
    orgId,
    channelId,
    limit + 1,
    ...(pos.seq === null ? [] : [pos.seq]),
  ]);
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}

async function channelPage(ctx: HandlerCtx, p: Params): Promise<HistoryResult & { empty: boolean }> {
  const pos = positionOf(p);
  const access = await channelAccess(ctx.q, ctx.orgId, p.channelId!, ctx.principal.id, 'read');
  const { rows, more } = await channelRows(ctx.q, ctx.orgId, p.channelId!, pos, p.limit);
  const last = rows[rows.length - 1];
  const dir = pos.dir === 'after' ? 'a' : 'b';
  return {
    messages: await messagesFor(ctx.q, ctx.orgId, rows, ctx.principal.id, { now: ctx.deps.clock.now() }),
    lastSeq: Number(access.channel.last_seq),
    nextCursor: more && last ? encodeCursor([dir, Number(last.seq)]) : null,
    empty: rows.length === 0,
  };
}

/**
 * after + waitMs: read; while nothing is above `after`, wait for an event of the org's ledger naming the channel (any
 * process; subscribed before the first read, so a post committed in between still wakes it) or the recheck timer.
 */
async function waitingChannelPage(ctx: HandlerCtx, p: Params, waitMs: number): Promise<HistoryResult> {
  const deadline = Date.now() + waitMs;
  let woken = false;
  let wake: (() => void) | undefined;
  const channelId = p.channelId!;
  const subscription = await ctx.deps.stream.subscribe(ctx.orgId, undefined, (events) => {
    if (events.some((e) => e.row.entity_id === channelId || e.row.payload.includes(`"${channelId}"`))) {
      woken = true;
      wake?.();
    }
  });
  try {
    for (;;) {
      woken = false;
      const { empty, ...page } = await channelPage(ctx, p);
      const remaining = deadline - Date.now();
      if (!empty || remaining <= 0) return { ...page, timedOut: empty };
      if (woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(remaining, WAIT_RECHECK_MS));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    subscription.close();
  }
}

async function threadPage(ctx: HandlerCtx, p: Params): Promise<HistoryResult> {
  const { message } = await messageAccess(ctx.q, ctx.orgId, p.threadId!, ctx.principal.id, 'read');
  const root = message.thread_id ?? message.message_id;
  const after =
    p.cursor === undefined
      ? 0
      : decodeCursor<['t', number]>(p.cursor, 'cursor', (v) => v.length === 2 && v[0] === 't' && Number.isSafeInteger(v[1]), 'history returned')[1];
  const rows = await ctx.q.query<MessageRow>(
    `SELECT * FROM (
       (SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.org_id = $1 AND m.message_id = $2 AND m.seq > $3)
       UNION ALL
       (SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.org_id = $1 AND m.thread_id = $2 AND m.seq > $3 ORDER BY m.seq LIMIT $4)
     ) t ORDER BY t.seq LIMIT $4`,
    [ctx.orgId, root, after, p.limit + 1],
  );
  const shown = rows.slice(0, p.limit);
  const last = shown[shown.length - 1];
  return {
    messages: await messagesFor(ctx.q, ctx.orgId, shown, ctx.principal.id, { now: ctx.deps.clock.now() }),
    nextCursor: rows.length > p.limit && last ? encodeCursor(['t', Number(last.seq)]) : null,
  };
}

async function messagePage(ctx: HandlerCtx, p: Params): Promise<HistoryResult> {
  const { message, access } = await messageAccess(ctx.q, ctx.orgId, p.messageId!, ctx.principal.id, 'read');
  const mayRevisions = message.author_id === ctx.principal.id || managesChannel(access.role);
  const revisions = mayRevisions
    ? await ctx.q.query<{ n: number; text: string; replaced_at: string | Date }>(
        'SELECT n, text, replaced_at FROM message_revisions WHERE org_id = $1 AND message_id = $2 ORDER BY n',
        [ctx.orgId, message.message_id],
      )
    : null;
  return {
    messages: await messagesFor(ctx.q, ctx.orgId, [message], ctx.principal.id, { now: ctx.deps.clock.now() }),
    revisions: revisions?.map((r) => ({ n: Number(r.n), text: r.text, replacedAt: new Date(r.replaced_at).toISOString() })) ?? null,
    nextCursor: null,
  };
}

export const history = handler(c.history, async (ctx, p): Promise<HistoryResult> => {
  const mode = modeOf(p);
  switch (mode) {
    case 'channel': {
      if (p.waitMs) return waitingChannelPage(ctx, p, p.waitMs);
      const { empty, ...page } = await channelPage(ctx, p);
      return p.waitMs === 0 ? { ...page, timedOut: empty } : page;
    }
    case 'thread':
      return threadPage(ctx, p);
    case 'message':
      return messagePage(ctx, p);
    case 'search':
      return searchPage(ctx, p);
    case 'pinned':
      return pinnedPage(ctx, p);
    case 'bookmarks':
      return bookmarksPage(ctx, p);
    case 'scheduled':
      return scheduledPage(ctx, p);
  }
});
