import type { z } from 'zod';
import { ApiError, badRequest, conflict, notFound } from '../../protocol/errors.js';
import { MAX_BOOKMARKS, messagingLifecycle as c } from '../../protocol/methods/messaging/lifecycle.js';
import type { Bookmark } from '../../protocol/methods/messaging/shapes.js';
import { one, type Queryable } from '../../db/types.js';
import { channelAccess } from './channel/access.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { messageAccess } from './model.js';
import { checkFiles } from './text.js';

/*
 * Channel bookmarks: a title and exactly one target (a posted message of the channel, an http(s) URL, a file).
 * Removal keeps the row (removed_at), so unbookmark again is a no-op; a message's delete erases those naming it.
 * Events name the target's kind and ids, never a title or URL.
 */

export interface BookmarkRow {
  bookmark_id: string;
  channel_id: string;
  title: string;
  message_id: string | null;
  url: string | null;
  file_id: string | null;
  created_by: string;
  created_at: string | Date;
  removed_at: string | Date | null;
}

export const BOOKMARK_COLUMNS = 'bookmark_id, channel_id, title, message_id, url, file_id, created_by, created_at, removed_at';

export const toBookmark = (r: BookmarkRow): z.infer<typeof Bookmark> => ({
  id: r.bookmark_id,
  channelId: r.channel_id,
  title: r.title,
  messageId: r.message_id,
  url: r.url,
  fileId: r.file_id,
  createdBy: r.created_by,
  createdAt: new Date(r.created_at).toISOString(),
});

const liveCount = async (q: Queryable, orgId: string, channelId: string) =>
  Number(
    one(
      await q.query<{ n: number }>('SELECT count(*)::int AS n FROM channel_bookmarks WHERE org_id = $1 AND channel_id = $2 AND removed_at IS NULL', [
        orgId,
        channelId,
      ]),
    ).n,
  );

type Target =
  { kind: 'message'; column: 'message_id'; value: string } | { kind: 'url'; column: 'url'; value: string } | { kind: 'file'; column: 'file_id'; value: string };

function targetOf(p: { messageId?: string; url?: string; fileId?: string }): Target {
  const given = [
    p.messageId !== undefined ? ({ kind: 'message', column: 'message_id', value: p.messageId } as const) : null,
    p.url !== undefined ? ({ kind: 'url', column: 'url', value: p.url } as const) : null,
    p.fileId !== undefined ? ({ kind: 'file', column: 'file_id', value: p.fileId } as const) : null,
  ].filter((t) => t !== null);
  const field = { message_id: 'messageId', url: 'url', file_id: 'fileId' } as const;
  if (given.length === 0) throw badRequest('messageId', 'give exactly one target: messageId, url or fileId');
  if (given.length > 1)
    throw badRequest(`${field[given[1].column]}`, `give exactly one target, not both ${field[given[0].column]} and ${field[given[1].column]}`);
  return given[0];
}

/** A message target must be a posted message of this channel the caller can see. */
async function checkMessageTarget(q: Queryable, orgId: string, channelId: string, messageId: string, principalId: string): Promise<void> {
  let message;
  try {
    ({ message } = await messageAccess(q, orgId, messageId, principalId, 'read'));
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') throw notFound(`message ${messageId}`);
    throw err;
  }
  if (message.channel_id !== channelId) throw badRequest('messageId', `must be a message of ${channelId}`);
  if (message.status !== 'posted') throw conflict(`message ${messageId} is ${message.status}: only a posted message can be bookmarked`);
}

export const bookmark = handler(c.bookmark, async (ctx, p) => {
  const target = targetOf(p);
  await channelAccess(ctx.q, ctx.orgId, p.channelId, ctx.principal.id, 'write', { lock: true });
  if (target.kind === 'message') await checkMessageTarget(ctx.q, ctx.orgId, p.channelId, target.value, ctx.principal.id);
  if (target.kind === 'file') await checkFiles(ctx.q, ctx.orgId, ctx.principal, [target.value], 'fileId');
  const [existing] = await ctx.q.query<BookmarkRow>(
    `SELECT ${BOOKMARK_COLUMNS} FROM channel_bookmarks WHERE org_id = $1 AND channel_id = $2 AND ${target.column} = $3 AND removed_at IS NULL
      ORDER BY created_at LIMIT 1`,
    [ctx.orgId, p.channelId, target.value],
  );
  const count = await liveCount(ctx.q, ctx.orgId, p.channelId);
  const ids = {
    channelId: p.channelId,
    target: target.kind,
    ...(target.kind === 'message' ? { messageId: target.value } : {}),
    ...(target.kind === 'file' ? { fileId: target.value } : {}),
  };
  if (existing) {
    await ctx.emit('messaging.bookmark.add', existing.bookmark_id, { ...ids, bookmarkId: existing.bookmark_id, bookmarks: count, noop: true });
    return { bookmark: toBookmark(existing), changed: false };
  }
  if (count >= MAX_BOOKMARKS) throw conflict(`${p.channelId} already has ${MAX_BOOKMARKS} bookmarks, the most it may: remove one first (messaging.unbookmark)`);
  const row = one(
    await ctx.q.query<BookmarkRow>(
      `INSERT INTO channel_bookmarks (org_id, bookmark_id, channel_id, title, ${target.column}, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${BOOKMARK_COLUMNS}`,
      [ctx.orgId, newId('bkm'), p.channelId, p.title, target.value, ctx.principal.id, ctx.deps.clock.now().toISOString()],
    ),
  );
  await ctx.emit('messaging.bookmark.add', row.bookmark_id, { ...ids, bookmarkId: row.bookmark_id, bookmarks: count + 1 });
  return { bookmark: toBookmark(row), changed: true };
});

export const unbookmark = handler(c.unbookmark, async (ctx, p) => {
  const [found] = await ctx.q.query<BookmarkRow>(`SELECT ${BOOKMARK_COLUMNS} FROM channel_bookmarks WHERE org_id = $1 AND bookmark_id = $2`, [
    ctx.orgId,
    p.bookmarkId,
  ]);
  if (!found) throw notFound(`bookmark ${p.bookmarkId}`);
  try {
    await channelAccess(ctx.q, ctx.orgId, found.channel_id, ctx.principal.id, 'write', { lock: true });
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') throw notFound(`bookmark ${p.bookmarkId}`);
    throw err;
  }
  const [removed] = await ctx.q.query<BookmarkRow>(
    `UPDATE channel_bookmarks SET removed_at = $3, removed_by = $4 WHERE org_id = $1 AND bookmark_id = $2 AND removed_at IS NULL RETURNING ${BOOKMARK_COLUMNS}`,
    [ctx.orgId, p.bookmarkId, ctx.deps.clock.now().toISOString(), ctx.principal.id],
  );
  const count = await liveCount(ctx.q, ctx.orgId, found.channel_id);
  await ctx.emit('messaging.bookmark.remove', p.bookmarkId, {
    channelId: found.channel_id,
    bookmarkId: p.bookmarkId,
    bookmarks: count,
    ...(removed ? {} : { noop: true }),
  });
  return { bookmark: toBookmark(removed ?? found), changed: removed !== undefined };
});
