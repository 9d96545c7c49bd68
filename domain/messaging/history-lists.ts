import type { z } from 'zod';
import { MAX_SEARCH_LIMIT, messagingCore as c } from '../../protocol/methods/messaging/core.js';
import { channelAccess, READABLE_CHANNELS_SQL } from './channel/access.js';
import { decodeCursor, encodeCursor, timeAndId } from '../core/cursor.js';
import type { HandlerCtx } from '../core/handler.js';
import { BOOKMARK_COLUMNS, toBookmark, type BookmarkRow } from './bookmarks.js';
import { MESSAGE_COLUMNS, messagesFor, type MessageRow } from './model.js';
import { messageSearch } from './search.js';

/*
 * The list modes of messaging.history: a full text search over the channels the caller may read, a channel's pins
 * and bookmarks, and the caller's own scheduled messages. Each pages by a keyset cursor.
 */

type Params = z.output<typeof c.history.params>;
type Result = z.infer<NonNullable<typeof c.history.result>>;

const iso = (v: string | Date) => new Date(v).toISOString();
const afterKey = (p: Params) => (p.cursor === undefined ? undefined : decodeCursor<[string, string]>(p.cursor, 'cursor', timeAndId, 'history returned'));

/** Ranked by db/search.ts (its own cursor, at most 100 a page), restricted to channels the caller may read. */
export async function searchPage(ctx: HandlerCtx, p: Params): Promise<Result> {
  const channelIds = p.channelId
    ? [(await channelAccess(ctx.q, ctx.orgId, p.channelId, ctx.principal.id, 'read')).channel.channel_id]
    : (await ctx.q.query<{ channel_id: string }>(`SELECT channel_id FROM ${READABLE_CHANNELS_SQL('$1', '$2')} AS r`, [ctx.orgId, ctx.principal.id])).map(
        (r) => r.channel_id,
      );
  if (channelIds.length === 0) return { messages: [], hits: [], nextCursor: null };
  // Search settings are local to a transaction: its own short one (a read holds none otherwise).
  const page = await ctx.deps.db.tx((q) =>
    messageSearch.search(q, {
      org: ctx.orgId,
      q: p.query!,
      limit: Math.min(p.limit, MAX_SEARCH_LIMIT),
      cursor: p.cursor,
      filters: { channelId: channelIds, status: 'posted', authorId: p.from },
      ranges: { postedAt: p.since === undefined && p.until === undefined ? undefined : { from: p.since, until: p.until } },
      fields: { q: 'query', cursor: 'cursor' },
    }),
  );
  const ids = page.items.map((h) => h.id);
  const rows = ids.length
    ? await ctx.q.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.org_id = $1 AND m.message_id = ANY($2::text[])`, [ctx.orgId, ids])
    : [];
  const byId = new Map(rows.map((r) => [r.message_id, r]));
  // A hit deleted between the search and this read is left out.
  const hits = page.items.filter((h) => byId.get(h.id)?.status === 'posted');
  return {
    messages: await messagesFor(
      ctx.q,
      ctx.orgId,
      hits.map((h) => byId.get(h.id)!),
      ctx.principal.id,
      { now: ctx.deps.clock.now() },
    ),
    hits: hits.map((h) => ({ messageId: h.id, score: h.score, highlight: h.highlights.text ?? [] })),
    nextCursor: page.nextCursor,
  };
}

/** A channel's pinned messages, latest pin first. */
export async function pinnedPage(ctx: HandlerCtx, p: Params): Promise<Result> {
  await channelAccess(ctx.q, ctx.orgId, p.channelId!, ctx.principal.id, 'read');
  const after = afterKey(p);
  const rows = await ctx.q.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM messages m
      WHERE m.org_id = $1 AND m.channel_id = $2 AND m.pinned_at IS NOT NULL AND m.status = 'posted'
        ${after ? 'AND (m.pinned_at, m.message_id) < ($4::timestamptz, $5)' : ''}
      ORDER BY m.pinned_at DESC, m.message_id DESC LIMIT $3`,
    [ctx.orgId, p.channelId, p.limit + 1, ...(after ?? [])],
  );
  const shown = rows.slice(0, p.limit);
  const last = shown[shown.length - 1];
  return {
    messages: await messagesFor(ctx.q, ctx.orgId, shown, ctx.principal.id, { now: ctx.deps.clock.now() }),
    nextCursor: rows.length > p.limit && last ? encodeCursor([iso(last.pinned_at!), last.message_id]) : null,
  };
}

/** A channel's live bookmarks, oldest first. */
export async function bookmarksPage(ctx: HandlerCtx, p: Params): Promise<Result> {
  await channelAccess(ctx.q, ctx.orgId, p.channelId!, ctx.principal.id, 'read');
  const after = afterKey(p);
  const rows = await ctx.q.query<BookmarkRow>(
    `SELECT ${BOOKMARK_COLUMNS} FROM channel_bookmarks
      WHERE org_id = $1 AND channel_id = $2 AND removed_at IS NULL
        ${after ? 'AND (created_at, bookmark_id) > ($4::timestamptz, $5)' : ''}
      ORDER BY created_at, bookmark_id LIMIT $3`,
    [ctx.orgId, p.channelId, p.limit + 1, ...(after ?? [])],
  );
  const shown = rows.slice(0, p.limit);
  const last = shown[shown.length - 1];
  return {
    messages: [],
    bookmarks: shown.map(toBookmark),
    nextCursor: rows.length > p.limit && last ? encodeCursor([iso(last.created_at), last.bookmark_id]) : null,
  };
}

/** The caller's own scheduled messages, soonest first (messages_scheduled: org, author, post_at). */
export async function scheduledPage(ctx: HandlerCtx, p: Params): Promise<Result> {
  const after = afterKey(p);
  const rows = await ctx.q.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM messages m
      WHERE m.org_id = $1 AND m.author_id = $2 AND m.status = 'scheduled'
        ${after ? 'AND (m.post_at, m.message_id) > ($4::timestamptz, $5)' : ''}
      ORDER BY m.post_at, m.message_id LIMIT $3`,
    [ctx.orgId, ctx.principal.id, p.limit + 1, ...(after ?? [])],
  );
  const shown = rows.slice(0, p.limit);
  const last = shown[shown.length - 1];
  return {
    messages: await messagesFor(ctx.q, ctx.orgId, shown, ctx.principal.id, { now: ctx.deps.clock.now() }),
    nextCursor: rows.length > p.limit && last ? encodeCursor([iso(last.post_at!), last.message_id]) : null,
  };
}
