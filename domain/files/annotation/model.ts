import type { z } from 'zod';
import { ApiError, conflict, notFound } from '../../../protocol/errors.js';
import type { Annotation, Reply, SelectorValue } from '../../../protocol/methods/annotation.js';
import { one, type Queryable } from '../../../db/types.js';
import type { Principal } from '../../core/auth.js';
import { roleRank } from '../access.js';
import { newId } from '../../core/ids.js';
import { readTarget, type Target, type TargetType } from '../../refs.js';
import type { FamilySet } from '../../core/family.js';

/*
 * Annotation rows and the shapes every view answers with (annotation.*, file.*Comment(s), files.comment*): the same
 * row gives the same shape whichever method reads it. A thread's comments are numbered under its row's lock.
 */

export type AnnotationStatus = 'open' | 'resolved' | 'dismissed';
type Time = string | Date;

export interface AnnotationRow {
  annotation_id: string;
  target_id: string;
  target_type: TargetType;
  kind: 'comment' | 'highlight' | 'flag';
  selector: SelectorValue | null;
  selector_type: string | null;
  anchor_status: 'anchored' | 'orphaned';
  status: AnnotationStatus;
  discussion: boolean;
  comment_count: number;
  last_comment_at: Time | null;
  created_by: string;
  created_at: Time;
  updated_at: Time;
  resolved_by: string | null;
  resolved_at: Time | null;
  dismissed_by: string | null;
  dismissed_at: Time | null;
  /** The opening comment's body (seq 1), joined in. */
  body: string | null;
}

export const ANNOTATION_COLUMNS = `a.annotation_id, a.target_id, a.target_type, a.kind, a.selector, a.selector_type, a.anchor_status, a.status,
  a.discussion, a.comment_count, a.last_comment_at, a.created_by, a.created_at, a.updated_at, a.resolved_by, a.resolved_at, a.dismissed_by,
  a.dismissed_at, (SELECT r.body FROM annotation_replies r WHERE r.org_id = a.org_id AND r.annotation_id = a.annotation_id AND r.seq = 1) AS body`;

export interface ReplyRow {
  reply_id: string;
  annotation_id: string;
  seq: number;
  author_id: string;
  body: string;
  client_msg_id: string | null;
  created_at: Time;
}

export const REPLY_COLUMNS = 'reply_id, annotation_id, seq, author_id, body, client_msg_id, created_at';

const iso = (v: Time): string => new Date(v).toISOString();
const isoOrNull = (v: Time | null): string | null => (v === null ? null : iso(v));

export const toAnnotation = (r: AnnotationRow): z.infer<typeof Annotation> => ({
  id: r.annotation_id,
  targetId: r.target_id,
  targetType: r.target_type,
  kind: r.kind,
  selector: r.selector,
  anchorStatus: r.anchor_status,
  status: r.status,
  discussion: r.discussion,
  body: r.body,
  commentCount: Number(r.comment_count),
  createdBy: r.created_by,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  lastCommentAt: isoOrNull(r.last_comment_at),
  resolvedBy: r.resolved_by,
  resolvedAt: isoOrNull(r.resolved_at),
  dismissedBy: r.dismissed_by,
  dismissedAt: isoOrNull(r.dismissed_at),
});

export const toReply = (r: ReplyRow): z.infer<typeof Reply> => ({
  id: r.reply_id,
  annotationId: r.annotation_id,
  seq: Number(r.seq),
  author: r.author_id,
  body: r.body,
  clientMsgId: r.client_msg_id,
  createdAt: iso(r.created_at),
});

export async function findAnnotation(q: Queryable, orgId: string, annotationId: string, lock = false): Promise<AnnotationRow | undefined> {
  const [row] = await q.query<AnnotationRow>(
    `SELECT ${ANNOTATION_COLUMNS} FROM annotations a WHERE a.org_id = $1 AND a.annotation_id = $2 ${lock ? 'FOR UPDATE OF a' : ''}`,
    [orgId, annotationId],
  );
  return row;
}

/** A thread and its target as the caller may read them: NOT_FOUND (named as the thread) when either is not there. */
export async function threadFor(
  families: FamilySet,
  q: Queryable,
  orgId: string,
  annotationId: string,
  p: Principal,
  lock = false,
): Promise<{ row: AnnotationRow; target: Target }> {
  const row = await findAnnotation(q, orgId, annotationId, lock);
  if (!row) throw notFound(`annotation ${annotationId}`);
  const target = await readTarget(families, q, orgId, row.target_id, p, `annotation ${annotationId}`);
  return { row, target };
}

/**
 * A target the caller may annotate: readable, and for a file role commenter on it and not in the trash
 * (FORBIDDEN_SCOPE naming the role; CONFLICT saying how to recover).
 */
export function requireCommenter(target: Target): void {
  const f = target.file;
  if (!f) return;
  if (roleRank(f.role) < roleRank('commenter')) {
    throw new ApiError(
      'FORBIDDEN_SCOPE',
      `missing role commenter on ${f.file.file_id} (you are ${f.role}): ask a manager of it to share it with you as commenter`,
    );
  }
  if (f.file.status === 'trashed') throw conflict(`${f.file.file_id} is in the trash: recover it first (files.recover), then comment`);
}

/**
 * The caller's comment sent earlier with this clientMsgId, if any. Serialised per (author, clientMsgId) for the
 * rest of the transaction, so two concurrent sends cannot both miss it.
 */
export async function earlierComment(q: Queryable, orgId: string, authorId: string, clientMsgId: string | undefined): Promise<ReplyRow | undefined> {
  if (clientMsgId === undefined) return undefined;
  await q.query(`SELECT pg_advisory_xact_lock(hashtext('annotation-client:' || $1 || ':' || $2 || ':' || $3))`, [orgId, authorId, clientMsgId]);
  const [row] = await q.query<ReplyRow>(`SELECT ${REPLY_COLUMNS} FROM annotation_replies WHERE org_id = $1 AND author_id = $2 AND client_msg_id = $3`, [
    orgId,
    authorId,
    clientMsgId,
  ]);
  return row;
}

/** CONFLICT: the clientMsgId names a comment of the caller somewhere else. */
export const clientMsgIdTaken = (clientMsgId: string, reply: ReplyRow) =>
  conflict(`clientMsgId ${clientMsgId} is already your comment ${reply.reply_id} on ${reply.annotation_id}: send a new clientMsgId for a new comment`);

/** Append a comment to a thread (lock the row first); a resolved or dismissed thread reopens. */
export async function appendComment(
  q: Queryable,
  orgId: string,
  row: AnnotationRow,
  authorId: string,
  body: string,
  clientMsgId: string | undefined,
  now: Date,
): Promise<{ reply: ReplyRow; reopened: boolean }> {
  const at = now.toISOString();
  const seq = Number(row.comment_count) + 1;
  const reply = one(
    await q.query<ReplyRow>(
      `INSERT INTO annotation_replies (org_id, reply_id, annotation_id, seq, author_id, body, client_msg_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${REPLY_COLUMNS}`,
      [orgId, newId('rpl'), row.annotation_id, seq, authorId, body, clientMsgId ?? null, at],
    ),
  );
  const reopened = row.status !== 'open';
  await q.query(
    `UPDATE annotations SET comment_count = $3, last_comment_at = $4, updated_at = $4, status = 'open',
            resolved_by = NULL, resolved_at = NULL, dismissed_by = NULL, dismissed_at = NULL
      WHERE org_id = $1 AND annotation_id = $2`,
    [orgId, row.annotation_id, seq, at],
  );
  return { reply, reopened };
}

export interface NewThread {
  target: Target;
  kind: 'comment' | 'highlight' | 'flag';
  selector: SelectorValue | null;
  discussion?: boolean;
}

/** Insert a thread (open, anchored); the caller adds its opening comment. */
export async function insertThread(q: Queryable, orgId: string, t: NewThread, createdBy: string, now: Date): Promise<AnnotationRow> {
  const annotationId = newId('ann');
  const block = t.selector?.type === 'block' ? t.selector : null;
  await q.query(
    `INSERT INTO annotations (org_id, annotation_id, target_id, target_type, kind, selector, selector_type, anchor_tab, anchor_block, discussion,
                              created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12, $12)`,
    [
      orgId,
      annotationId,
      t.target.id,
      t.target.type,
      t.kind,
      t.selector === null ? null : JSON.stringify(t.selector),
      t.selector?.type ?? null,
      // The anchor's tab (a doc block's or a sheet cell's) and its unit (a block, a slide), for re-anchoring.
      block?.tabId ?? (t.selector?.type === 'cell' ? t.selector.tabId : null),
      block?.blockId ?? (t.selector?.type === 'slide' ? t.selector.slideId : null),
      t.discussion ?? false,
      createdBy,
      now.toISOString(),
    ],
  );
  return (await findAnnotation(q, orgId, annotationId, true))!;
}

/** Set a thread's status (lock the row first). */
export async function setStatus(q: Queryable, orgId: string, annotationId: string, status: AnnotationStatus, by: string, now: Date): Promise<void> {
  const at = now.toISOString();
  await q.query(
    `UPDATE annotations SET status = $3, updated_at = $5,
            resolved_by = CASE WHEN $3 = 'resolved' THEN $4 END, resolved_at = CASE WHEN $3 = 'resolved' THEN $5::timestamptz END,
            dismissed_by = CASE WHEN $3 = 'dismissed' THEN $4 END, dismissed_at = CASE WHEN $3 = 'dismissed' THEN $5::timestamptz END
      WHERE org_id = $1 AND annotation_id = $2`,
    [orgId, annotationId, status, by, at],
  );
}

/**
 * resolve (want resolved) or reopen (want open): the new status, or null when it is so already. A dismissed
 * thread is not resolved: CONFLICT saying to reopen it first.
 */
export function statusChange(row: AnnotationRow, want: 'resolved' | 'open'): AnnotationStatus | null {
  if (row.status === want) return null;
  if (want === 'resolved' && row.status === 'dismissed') {
    throw conflict(`annotation ${row.annotation_id} is dismissed: reopen it first (annotation.resolve reopen:true, or comment on it), then resolve it`);
  }
  return want;
}

/** Who dismisses a thread: its author, or an editor of its target (FORBIDDEN_SCOPE otherwise). */
export function requireDismisser(row: AnnotationRow, target: Target, p: Principal): void {
  if (row.created_by === p.id || target.editor) return;
  throw new ApiError(
    'FORBIDDEN_SCOPE',
    `missing role editor on ${row.target_id}: only its author (${row.created_by}) or an editor of ${row.target_id} dismisses annotation ${row.annotation_id}`,
  );
}
