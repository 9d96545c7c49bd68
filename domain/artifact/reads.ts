import type { z } from 'zod';
import { notFound } from '../../protocol/errors.js';
import { artifact as c, artifactReads as r, catalogDocument } from '../../protocol/methods/artifact/index.js';
import type { Queryable } from '../../db/types.js';
import type { Principal } from '../core/auth.js';
import { decodeCursor, encodeCursor, timeAndId } from '../core/cursor.js';
import type { Deps } from '../core/deps.js';
import { handler, readHandler } from '../core/handler.js';
import { READABLE_CHANNELS_SQL } from '../messaging/index.js';
import { artifactFor, artifactOf, RESPONSE_COLUMNS, responseOf, SUMMARY_COLUMNS, summaryOf, type ArtifactRow, type ResponseRow } from './model.js';
import { waitForChange } from './wake.js';

/*
 * artifact.catalog, get and list, and their GET aliases (/api/v1/artifacts, /artifacts/catalog, /artifacts/{id}),
 * which answer the same payloads bare. get long-polls: with waitMs and no response after responsesAfter, it waits
 * for the artifact's change notification (wake.ts) outside any transaction and reads again.
 */

const MAX_RESPONSES = 500;

type GetParams = z.output<(typeof c.get)['params']>;
type ListParams = z.output<(typeof c.list)['params']>;

interface Reader {
  q: Queryable;
  orgId: string;
  principal: Principal;
  deps: Deps;
  signal?: AbortSignal;
}

async function readOnce(ctx: Reader, p: GetParams) {
  const row = await artifactFor(ctx.q, ctx.orgId, p.artifactId, ctx.principal);
  const after = p.responsesAfter ?? 0;
  const rows = await ctx.q.query<ResponseRow>(
    `SELECT ${RESPONSE_COLUMNS} FROM artifact_responses r WHERE r.org_id = $1 AND r.artifact_id = $2 AND r.seq > $3 ORDER BY r.seq LIMIT ${MAX_RESPONSES}`,
    [ctx.orgId, p.artifactId, after],
  );
  const responses = rows.map((x) => responseOf(x, ctx.principal.id, row.author_id));
  return { row, result: { artifact: artifactOf(row), responses, responsesCursor: responses.length ? responses[responses.length - 1].seq : after } };
}

export async function getArtifact(ctx: Reader, p: GetParams) {
  const deadline = Date.now() + (p.waitMs ?? 0);
  for (;;) {
    const left = deadline - Date.now();
    // Subscribed before the read: a response committed between the read and the wait still wakes it.
    const wait = left > 0 ? waitForChange(ctx.deps, ctx.orgId, p.artifactId, left, ctx.signal) : undefined;
    let read: Awaited<ReturnType<typeof readOnce>>;
    try {
      read = await readOnce(ctx, p);
    } catch (err) {
      wait?.cancel();
      throw err;
    }
    if (!wait || read.result.responses.length > 0 || read.row.state !== 'posted') {
      wait?.cancel();
      return read.result;
    }
    if (!(await wait.changed)) return (await readOnce(ctx, p)).result;
  }
}

export async function listArtifacts(ctx: Reader, p: ListParams) {
  const asc = p.updatedAfter !== undefined;
  const after = p.cursor === undefined ? null : decodeCursor<[string, string]>(p.cursor, 'cursor', timeAndId);
  const me = ctx.principal.id;
  const rows = await ctx.q.query<ArtifactRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM artifacts a
      WHERE a.org_id = $1
        AND (a.author_id = $2 OR (a.state <> 'draft' AND a.channel_id IN ${READABLE_CHANNELS_SQL('$1', '$2')}))
        AND ($3::text IS NULL OR a.channel_id = $3)
        AND ($4::text IS NULL OR a.state = $4)
        AND (NOT $5 OR a.author_id = $2)
        AND (NOT $6 OR (a.state = 'posted' AND a.author_id <> $2 AND (a.expires_at IS NULL OR a.expires_at > $9)
             AND NOT EXISTS (SELECT 1 FROM artifact_responses r WHERE r.org_id = a.org_id AND r.artifact_id = a.artifact_id AND r.actor_id = $2)))
        AND ($7::timestamptz IS NULL OR a.updated_at > $7)
        AND ($8::timestamptz IS NULL OR (a.updated_at, a.artifact_id) ${asc ? '>' : '<'} ($8::timestamptz, $10))
      ORDER BY a.updated_at ${asc ? 'ASC' : 'DESC'}, a.artifact_id ${asc ? 'ASC' : 'DESC'} LIMIT $11`,
    [
      ctx.orgId,
      me,
      p.channelId ?? null,
      p.state ?? null,
      p.mine ?? false,
      p.pending ?? false,
      p.updatedAfter ?? null,
      after?.[0] ?? null,
      ctx.deps.clock.now().toISOString(),
      after?.[1] ?? null,
      p.limit + 1,
    ],
  );
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return {
    artifacts: page.map(summaryOf),
    nextCursor: rows.length > p.limit && last ? encodeCursor([new Date(last.updated_at).toISOString(), last.artifact_id]) : null,
  };
}

export const catalog = handler(c.catalog, async () => catalogDocument());
export const get = handler(c.get, async (ctx, p) => getArtifact(ctx, p));
export const list = handler(c.list, async (ctx, p) => listArtifacts(ctx, p));

/** A GET alias's slug: the key's own org, or NOT_FOUND. */
function checkSlug(principal: Principal, slug: string | undefined): void {
  if (slug !== undefined && slug !== principal.orgSlug) throw notFound(`org ${slug}`);
}

const bool = (v: 'true' | 'false' | undefined) => (v === undefined ? undefined : v === 'true');

export const artifactGetReads = {
  artifacts: readHandler(r.artifacts, async (ctx, { slug, mine, pending, ...q }) => {
    checkSlug(ctx.principal, slug);
    return listArtifacts(ctx, { ...q, mine: bool(mine), pending: bool(pending) });
  }),
  'artifacts/catalog': readHandler(r['artifacts/catalog'], async (ctx, { slug }) => {
    checkSlug(ctx.principal, slug);
    return catalogDocument();
  }),
  'artifacts/{id}': readHandler(r['artifacts/{id}'], async (ctx, { slug, id, ...q }) => {
    checkSlug(ctx.principal, slug);
    return getArtifact(ctx, { artifactId: id, ...q });
  }),
};
