import type { z } from 'zod';
import { annotation as c, type Annotation } from '../../../protocol/methods/annotation.js';
import type { Principal } from '../../core/auth.js';
import { decodeCursor, encodeCursor, fitsInt32 } from '../../core/cursor.js';
import type { Queryable } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { readableMemo, readTarget } from '../../refs.js';
import { ANNOTATION_COLUMNS, REPLY_COLUMNS, threadFor, toAnnotation, toReply, type AnnotationRow, type ReplyRow } from './model.js';
import type { FamilySet } from '../../core/family.js';

/*
 * Reads: a thread with its comments, and threads newest first. On one target the target is checked once; across
 * every target each row's target is checked (memoised per page), looking at no more than SCAN_ROWS rows, so a
 * caller who can read little never costs a scan of the whole store: nextCursor then resumes where the scan stopped.
 */

export const SCAN_ROWS = 2000;

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const timeAndId = (v: unknown[]) => v.length === 2 && typeof v[0] === 'string' && ISO.test(v[0]) && !Number.isNaN(Date.parse(v[0])) && typeof v[1] === 'string';

export interface ThreadFilter {
  targetId?: string;
  kind?: string;
  status?: string;
  anchorStatus?: string;
  cursor?: string;
  limit: number;
}

/**
 * Threads newest first. With a targetId the caller has read it already; without one, only threads on targets
 * the caller can read are returned.
 */
export async function listThreads(
  families: FamilySet,
  q: Queryable,
  orgId: string,
  p: Principal,
  f: ThreadFilter,
): Promise<{ annotations: z.infer<typeof Annotation>[]; nextCursor: string | null }> {
  const params: unknown[] = [orgId];
  const where = ['a.org_id = $1'];
  if (f.targetId !== undefined) where.push(`a.target_id = $${params.push(f.targetId)}`);
  if (f.kind !== undefined) where.push(`a.kind = $${params.push(f.kind)}`);
  if (f.status !== undefined) where.push(`a.status = $${params.push(f.status)}`);
  if (f.anchorStatus !== undefined) where.push(`a.anchor_status = $${params.push(f.anchorStatus)}`);
  let after = f.cursor === undefined ? null : decodeCursor<[string, string]>(f.cursor, 'cursor', timeAndId);
  const visible = f.targetId === undefined ? readableMemo(families, q, orgId, p) : async () => true;
  const shown: AnnotationRow[] = [];
  let scanned = 0;
  let lastScanned: AnnotationRow | undefined;
  let exhausted = false;
  const batch = Math.min(SCAN_ROWS, f.limit + 1);
  while (shown.length <= f.limit && scanned < SCAN_ROWS && !exhausted) {
    const args = [...params];
    const page = after === null ? '' : ` AND (a.created_at, a.annotation_id) < ($${args.push(after[0])}::timestamptz, $${args.push(after[1])})`;
    const rows = await q.query<AnnotationRow>(
      `SELECT ${ANNOTATION_COLUMNS} FROM annotations a WHERE ${where.join(' AND ')}${page}
        ORDER BY a.created_at DESC, a.annotation_id DESC LIMIT $${args.push(batch)}`,
      args,
    );
    exhausted = rows.length < batch;
    for (const row of rows) {
      scanned++;
      lastScanned = row;
      if (await visible(row.target_id)) shown.push(row);
      if (shown.length > f.limit) break;
    }
    if (lastScanned) after = [new Date(lastScanned.created_at).toISOString(), lastScanned.annotation_id];
  }
  const page = shown.slice(0, f.limit);
  // A full page with more behind it resumes after its last row; a scan cut short resumes where it stopped.
  const resumeAt = shown.length > f.limit ? page[page.length - 1] : exhausted ? undefined : lastScanned;
  return {
    annotations: page.map(toAnnotation),
    nextCursor: resumeAt ? encodeCursor([new Date(resumeAt.created_at).toISOString(), resumeAt.annotation_id]) : null,
  };
}

export const list = handler(c.list, async (ctx, p) => {
  if (p.targetId !== undefined) await readTarget(ctx.deps.families, ctx.q, ctx.orgId, p.targetId, ctx.principal);
  return listThreads(ctx.deps.families, ctx.q, ctx.orgId, ctx.principal, p);
});

/** The seq a comments cursor resumes after (0 without one); BAD_REQUEST when it is not one. */
export const commentsAfter = (cursor: string | undefined): number =>
  cursor === undefined ? 0 : decodeCursor<[number]>(cursor, 'cursor', (v) => v.length === 1 && fitsInt32(v[0]) && v[0] >= 0)[0];

/** A thread's comments in order, after `cursor` (a seq). */
export async function threadComments(q: Queryable, orgId: string, annotationId: string, cursor: string | undefined, limit: number) {
  const after = commentsAfter(cursor);
  const rows = await q.query<ReplyRow>(
    `SELECT ${REPLY_COLUMNS} FROM annotation_replies WHERE org_id = $1 AND annotation_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
    [orgId, annotationId, after, limit + 1],
  );
  const page = rows.slice(0, limit);
  return { comments: page.map(toReply), nextCursor: rows.length > limit ? encodeCursor([Number(page[page.length - 1].seq)]) : null };
}

export const getThread = handler(c.getThread, async (ctx, p) => {
  const { row } = await threadFor(ctx.deps.families, ctx.q, ctx.orgId, p.annotationId, ctx.principal);
  return { annotation: toAnnotation(row), ...(await threadComments(ctx.q, ctx.orgId, row.annotation_id, p.cursor, p.limit)) };
});
