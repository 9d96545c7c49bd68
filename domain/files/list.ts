import type { z } from 'zod';
import { defineSearch, type Segment } from '../../db/search.js';
import { badRequest } from '../../protocol/errors.js';
import { drive as c } from '../../protocol/methods/files/drive.js';
import { decodeCursor, encodeCursor, strings, timeAndId } from '../core/cursor.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { teamIdsOf } from '../people/index.js';
import { callerOf, FILE_COLUMNS, fileAccess, READABLE_FILE_SQL, type FileRow } from './access.js';
import { filesFor } from './model.js';

/*
 * files.list: a folder's children (folders first, then by name), the views (starred, shared with you, recent,
 * trash) and full-text search, each restricted to the files the caller may read (READABLE_FILE_SQL; an admin key
 * reads all) and paged by a keyset cursor. Search ranks by db/search.ts over name (A) and upload text (C), fuzzy
 * on names; 041_files.sql declares the same columns.
 */

export const fileSearch = defineSearch({
  table: 'files',
  id: 'file_id',
  weights: { A: ['name'], C: ['body_text'] },
  fuzzy: ['name'],
  filters: { status: 'status', kind: 'kind' },
});

type Params = z.output<typeof c.list.params>;
type Result = z.infer<NonNullable<typeof c.list.result>>;

/** Most search hits a page holds (db/search.ts's own bound). */
const MAX_SEARCH_PAGE = 100;

interface Scope {
  params: unknown[];
  /** "The caller may read f" over the bound parameters. */
  readable: string;
}

/** Binds org, caller, teams and now as $1-$4 (admin keys read everything). */
async function scope(ctx: HandlerCtx): Promise<Scope> {
  const caller = callerOf(ctx.principal);
  const teams = caller.admin ? [] : await teamIdsOf(ctx.q, ctx.orgId, caller.id);
  return {
    params: [ctx.orgId, caller.id, teams, ctx.deps.clock.now().toISOString()],
    readable: caller.admin ? '($2::text IS NOT NULL AND $3::text[] IS NOT NULL AND $4::timestamptz IS NOT NULL)' : READABLE_FILE_SQL('$1', '$2', '$3', '$4'),
  };
}

async function page(
  ctx: HandlerCtx,
  p: Params,
  rows: (FileRow & { sort_at?: string | Date })[],
  key: (r: FileRow & { sort_at?: string | Date }) => string[],
): Promise<Result> {
  const shown = rows.slice(0, p.limit);
  const last = shown[shown.length - 1];
  return {
    files: await filesFor(ctx.q, ctx.orgId, ctx.principal.id, shown),
    nextCursor: rows.length > p.limit && last ? encodeCursor(key(last)) : null,
  };
}

const iso = (v: string | Date | undefined | null) => new Date(v ?? 0).toISOString();

/** A folder's active children (or the root's), folders first, then by name and id. */
async function children(ctx: HandlerCtx, p: Params): Promise<Result> {
  if (p.parentId !== undefined) {
    const { file } = await fileAccess(ctx.q, ctx.orgId, p.parentId, callerOf(ctx.principal), 'viewer', { now: ctx.deps.clock.now() });
    if (file.kind !== 'folder') throw badRequest('parentId', `${p.parentId} is a ${file.kind}, not a folder`);
  }
  const s = await scope(ctx);
  const params = [...s.params, p.parentId ?? null, p.limit + 1, p.kind ?? null];
  const after =
    p.cursor === undefined ? undefined : decodeCursor<[string, string, string]>(p.cursor, 'cursor', (v) => strings(3)(v) && (v[0] === '0' || v[0] === '1'));
  const keyset = after
    ? `AND ((f.kind <> 'folder')::int, f.name, f.file_id) > ($${params.push(Number(after[0]))}::int, $${params.push(after[1])}::text, $${params.push(after[2])}::text)`
    : '';
  const rows = await ctx.q.query<FileRow>(
    `SELECT ${FILE_COLUMNS} FROM files f
      WHERE f.org_id = $1 AND f.parent_id IS NOT DISTINCT FROM $5::text AND f.status = 'active' AND ($7::text IS NULL OR f.kind = $7) ${keyset}
        AND ${s.readable}
      ORDER BY (f.kind <> 'folder')::int, f.name, f.file_id LIMIT $6`,
    params,
  );
  return page(ctx, p, rows, (r) => [r.kind === 'folder' ? '0' : '1', r.name, r.file_id]);
}

/** A view, newest first by its own time: when starred, shared, updated or trashed. */
async function view(ctx: HandlerCtx, p: Params, v: NonNullable<Params['view']>): Promise<Result> {
  const s = await scope(ctx);
  const params = [...s.params, p.limit + 1, p.kind ?? null];
  const after = p.cursor === undefined ? undefined : decodeCursor<[string, string]>(p.cursor, 'cursor', timeAndId);
  const keyset = after ? `AND (sort_at, file_id) < ($${params.push(after[0])}::timestamptz, $${params.push(after[1])}::text)` : '';
  const source = {
    starred: `SELECT f.*, st.starred_at AS sort_at FROM files f JOIN file_stars st ON st.org_id = f.org_id AND st.file_id = f.file_id AND st.principal_id = $2
               WHERE f.org_id = $1 AND f.status = 'active'`,
    shared: `SELECT f.*, sh.shared_at AS sort_at FROM files f JOIN (
               SELECT g.file_id, max(g.created_at) AS shared_at FROM file_grants g
                WHERE g.org_id = $1 AND g.revoked_at IS NULL AND (g.expires_at IS NULL OR g.expires_at > $4::timestamptz)
                  AND ((g.grantee_kind = 'principal' AND g.grantee = $2) OR (g.grantee_kind = 'team' AND g.grantee = ANY($3::text[])))
                GROUP BY g.file_id) sh ON sh.file_id = f.file_id
              WHERE f.org_id = $1 AND f.status = 'active'`,
    recent: `SELECT f.*, f.updated_at AS sort_at FROM files f WHERE f.org_id = $1 AND f.status = 'active'`,
    // The trash shows what was deleted (each delete's root); its subtree comes back with it.
    trash: `SELECT f.*, f.trashed_at AS sort_at FROM files f WHERE f.org_id = $1 AND f.status = 'trashed' AND f.trashed_root = f.file_id`,
  }[v];
  const rows = await ctx.q.query<FileRow & { sort_at: string | Date }>(
    `SELECT ${FILE_COLUMNS}, f.sort_at FROM (${source} AND ($6::text IS NULL OR f.kind = $6) AND ${s.readable}) f
      WHERE true ${keyset} ORDER BY f.sort_at DESC, f.file_id DESC LIMIT $5`,
    params,
  );
  return page(ctx, p, rows, (r) => [iso(r.sort_at), r.file_id]);
}

const snippet = (h: Record<string, Segment[]>): string => {
  const pick = h.body_text?.some((x) => x.match) ? h.body_text : (h.name ?? []);
  return pick.map((x) => (x.match ? `**${x.text}**` : x.text)).join('');
};

/** Full text over readable active files, best first. */
async function search(ctx: HandlerCtx, p: Params): Promise<Result> {
  const caller = callerOf(ctx.principal);
  const teams = caller.admin ? [] : await teamIdsOf(ctx.q, ctx.orgId, caller.id);
  const now = ctx.deps.clock.now().toISOString();
  // Search settings are local to a transaction: its own short one (a read holds none otherwise).
  const found = await ctx.deps.db.tx((q) =>
    fileSearch.search(q, {
      org: ctx.orgId,
      q: p.query!,
      limit: Math.min(p.limit, MAX_SEARCH_PAGE),
      cursor: p.cursor,
      filters: { status: 'active', kind: p.kind },
      fields: { q: 'query', cursor: 'cursor' },
      where: caller.admin ? undefined : (bind) => READABLE_FILE_SQL(bind(ctx.orgId), bind(caller.id), bind(teams), bind(now), 'files'),
    }),
  );
  const ids = found.items.map((h) => h.id);
  const rows = ids.length
    ? await ctx.q.query<FileRow>(`SELECT ${FILE_COLUMNS} FROM files f WHERE f.org_id = $1 AND f.file_id = ANY($2::text[])`, [ctx.orgId, ids])
    : [];
  const byId = new Map(rows.map((r) => [r.file_id, r]));
  // A hit trashed between the search and this read is left out.
  const hits = found.items.filter((h) => byId.get(h.id)?.status === 'active');
  return {
    files: await filesFor(
      ctx.q,
      ctx.orgId,
      caller.id,
      hits.map((h) => byId.get(h.id)!),
    ),
    hits: hits.map((h) => ({ fileId: h.id, matched: h.matched, snippet: snippet(h.highlights) })),
    nextCursor: found.nextCursor,
  };
}

export const list = handler(c.list, async (ctx, p) => {
  if (p.view !== undefined && p.parentId !== undefined) throw badRequest('view', 'list a folder (parentId) or a view, not both');
  if (p.query !== undefined && (p.view !== undefined || p.parentId !== undefined))
    throw badRequest('query', 'a search covers the whole drive: leave view and parentId out');
  if (p.query !== undefined) return search(ctx, p);
  if (p.view !== undefined) return view(ctx, p, p.view);
  return children(ctx, p);
});
