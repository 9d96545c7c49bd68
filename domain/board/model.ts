import { ApiError, notFound } from '../../protocol/errors.js';
import type { Attachment, Comment, Link, Task, Workstream } from '../../protocol/methods/board.js';
import type { Queryable } from '../../db/types.js';

/*
 * Rows, their wire shapes, and the lookups every board handler shares. Every query filters by org_id, so a
 * row of another org is indistinguishable from a missing one (NOT_FOUND).
 */

/** Task columns as selected (also in RETURNING): the claim is reported only while its lease is live. */
export function taskColumns(alias = ''): string {
  const a = alias ? `${alias}.` : '';
  return `${a}task_id, ${a}type, ${a}title, ${a}description, ${a}priority, ${a}col, ${a}workstream_id, ${a}parent_id, ${a}assignee,
    CASE WHEN ${a}claim_expires_at > now() THEN ${a}claimed_by END AS claimed_by,
    CASE WHEN ${a}claim_expires_at > now() THEN ${a}claim_expires_at END AS claim_expires_at,
    ${a}blocked_reason, ${a}position, ${a}created_by, ${a}created_at, ${a}updated_at, ${a}completed_at`;
}

export const TASK_COLUMNS = taskColumns();

export interface TaskRow {
  task_id: string;
  type: Task['type'];
  title: string;
  description: string;
  priority: Task['priority'];
  col: Task['col'];
  workstream_id: string | null;
  parent_id: string | null;
  assignee: string | null;
  claimed_by: string | null;
  claim_expires_at: string | null;
  blocked_reason: string | null;
  position: number;
  created_by: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export const toTask = (r: TaskRow): Task => ({
  id: r.task_id,
  type: r.type,
  title: r.title,
  description: r.description,
  priority: r.priority,
  col: r.col,
  workstreamId: r.workstream_id,
  parentId: r.parent_id,
  assignee: r.assignee,
  claimedBy: r.claimed_by,
  claimExpiresAt: r.claim_expires_at,
  blockedReason: r.blocked_reason,
  position: r.position,
  createdBy: r.created_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  completedAt: r.completed_at,
});

/** Sort key putting the highest priority first in an ascending ORDER BY. */
export const priorityRank = (column = 'priority') => `CASE ${column} WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'normal' THEN 2 ELSE 3 END`;

/** The position after the last item of a column ($1 is the org, the column is a bind parameter). */
export const endOfColumn = (colParam: string) => `COALESCE((SELECT max(position) + 1 FROM board_tasks WHERE org_id = $1 AND col = ${colParam}), 0)`;

export type Lock = '' | 'FOR UPDATE' | 'FOR KEY SHARE';

/** A task of this org, optionally locked; NOT_FOUND otherwise. */
export async function getTask(q: Queryable, orgId: string, taskId: string, lock: Lock = ''): Promise<TaskRow> {
  const [row] = await q.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM board_tasks WHERE org_id = $1 AND task_id = $2 ${lock}`, [orgId, taskId]);
  if (!row) throw notFound(`task ${taskId}`);
  return row;
}

/**
 * For another family storing task ids (a lease, a beat, a cost entry): every id is a task of this org, else
 * NOT_FOUND naming the field (`taskId`, `entries.3.taskId`). One query for any number of ids.
 */
export async function requireTasks(q: Queryable, orgId: string, refs: readonly { field: string; taskId: string }[]): Promise<void> {
  if (!refs.length) return;
  const rows = await q.query<{ task_id: string }>('SELECT task_id FROM board_tasks WHERE org_id = $1 AND task_id = ANY($2::text[])', [
    orgId,
    [...new Set(refs.map((r) => r.taskId))],
  ]);
  const found = new Set(rows.map((r) => r.task_id));
  const missing = refs.find((r) => !found.has(r.taskId));
  if (missing)
    throw new ApiError(
      'NOT_FOUND',
      `${missing.field}: task ${missing.taskId} not found in this organisation: nothing was recorded; pass the id of a task on this organisation's board or leave it out`,
    );
}

/** The raw claim of a task (even a lapsed one), for diagnosing a refused claim. */
export async function rawClaim(q: Queryable, orgId: string, taskId: string) {
  const [row] = await q.query<{ claimed_by: string | null; claim_expires_at: string | null; live: boolean }>(
    'SELECT claimed_by, claim_expires_at, coalesce(claim_expires_at > now(), false) AS live FROM board_tasks WHERE org_id = $1 AND task_id = $2',
    [orgId, taskId],
  );
  return row;
}

export interface WorkstreamRow {
  workstream_id: string;
  name: string;
  description: string;
  owner: string | null;
  position: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export const WORKSTREAM_COLUMNS = 'workstream_id, name, description, owner, position, created_by, created_at, updated_at';

export const toWorkstream = (r: WorkstreamRow): Workstream => ({
  id: r.workstream_id,
  name: r.name,
  description: r.description,
  owner: r.owner,
  position: r.position,
  createdBy: r.created_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * A workstream of this org; NOT_FOUND otherwise. FOR KEY SHARE when a row is about to reference it, so a
 * concurrent deleteWorkstream waits for this call instead of leaving a dangling reference.
 */
export async function getWorkstream(q: Queryable, orgId: string, workstreamId: string, lock: Lock = ''): Promise<WorkstreamRow> {
  const row = await findWorkstream(q, orgId, workstreamId, lock);
  if (!row) throw notFound(`workstream ${workstreamId}`);
  return row;
}

export async function findWorkstream(q: Queryable, orgId: string, workstreamId: string, lock: Lock = ''): Promise<WorkstreamRow | undefined> {
  const [row] = await q.query<WorkstreamRow>(`SELECT ${WORKSTREAM_COLUMNS} FROM board_workstreams WHERE org_id = $1 AND workstream_id = $2 ${lock}`, [
    orgId,
    workstreamId,
  ]);
  return row;
}

/** A principal (usr_…/agt_…) of this org; NOT_FOUND otherwise. */
export async function requirePrincipal(q: Queryable, orgId: string, principalId: string): Promise<void> {
  const [row] = await q.query('SELECT 1 FROM principals WHERE org_id = $1 AND principal_id = $2', [orgId, principalId]);
  if (!row) throw notFound(`principal ${principalId}`);
}

export interface CommentRow {
  comment_id: string;
  seq: number;
  task_id: string | null;
  workstream_id: string | null;
  body: string;
  author: string;
  created_at: string;
}

export const COMMENT_COLUMNS = 'comment_id, seq, task_id, workstream_id, body, author, created_at';

export const toComment = (r: CommentRow): Comment => ({
  id: r.comment_id,
  taskId: r.task_id,
  workstreamId: r.workstream_id,
  body: r.body,
  author: r.author,
  createdAt: r.created_at,
});

export interface AttachmentRow {
  attachment_id: string;
  seq: number;
  task_id: string;
  name: string;
  url: string;
  mime_type: string | null;
  size_bytes: number | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export const ATTACHMENT_COLUMNS = 'attachment_id, seq, task_id, name, url, mime_type, size_bytes, created_by, created_at, updated_at';

export const toAttachment = (r: AttachmentRow): Attachment => ({
  id: r.attachment_id,
  taskId: r.task_id,
  name: r.name,
  url: r.url,
  mimeType: r.mime_type,
  sizeBytes: r.size_bytes,
  createdBy: r.created_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface LinkRow {
  link_id: string;
  from_task_id: string;
  to_task_id: string;
  relation: Link['relation'];
  created_by: string;
  created_at: string;
}

export const toLink = (r: LinkRow): Link => ({
  id: r.link_id,
  fromTaskId: r.from_task_id,
  toTaskId: r.to_task_id,
  relation: r.relation,
  createdBy: r.created_by,
  createdAt: r.created_at,
});

/** Open (not done) items that block a task through a `blocks` link. */
export async function openBlockers(q: Queryable, orgId: string, taskId: string): Promise<string[]> {
  const rows = await q.query<{ task_id: string }>(
    `SELECT b.task_id FROM board_links l
       JOIN board_tasks b ON b.org_id = l.org_id AND b.task_id = l.from_task_id
      WHERE l.org_id = $1 AND l.to_task_id = $2 AND l.relation = 'blocks' AND b.col <> 'done'
      ORDER BY l.created_at, l.link_id`,
    [orgId, taskId],
  );
  return rows.map((r) => r.task_id);
}

/** SQL condition: the task aliased `t` has no open blocker. */
export const NO_OPEN_BLOCKER = `NOT EXISTS (
  SELECT 1 FROM board_links l JOIN board_tasks b ON b.org_id = l.org_id AND b.task_id = l.from_task_id
   WHERE l.org_id = t.org_id AND l.to_task_id = t.task_id AND l.relation = 'blocks' AND b.col <> 'done')`;

/** Rewrite positions to 0..n-1 in the given order (only rows whose position changes are written). */
export async function renumber(q: Queryable, orgId: string, table: 'board_tasks' | 'board_workstreams', ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const key = table === 'board_tasks' ? 'task_id' : 'workstream_id';
  await q.query(
    `UPDATE ${table} r SET position = v.pos - 1
       FROM unnest($2::text[]) WITH ORDINALITY AS v(id, pos)
      WHERE r.org_id = $1 AND r.${key} = v.id AND r.position <> v.pos - 1`,
    [orgId, ids],
  );
}

/**
 * Per-org transaction locks for acts that read or rewrite many rows: reordering a column or the workstream
 * list (so concurrent movers never deadlock on each other's rows) and creating links (so two concurrent
 * links cannot close a cycle of blocks together, nor add the same link twice).
 */
export const BOARD_LOCKS = { taskOrder: 7_311_101, workstreamOrder: 7_311_102, links: 7_311_103 } as const;

export async function lockBoard(q: Queryable, orgId: string, which: keyof typeof BOARD_LOCKS): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [BOARD_LOCKS[which], orgId]);
}

/** Insert `id` into `order` at `index` (clamped to the end). */
export function placeAt(order: string[], id: string, index: number): string[] {
  const rest = order.filter((x) => x !== id);
  const at = Math.min(index, rest.length);
  return [...rest.slice(0, at), id, ...rest.slice(at)];
}

/** The current assignees of those of `taskIds` that have one. */
export async function assigneesOf(q: Queryable, orgId: string, taskIds: readonly string[]): Promise<{ task_id: string; assignee: string }[]> {
  return q.query<{ task_id: string; assignee: string }>(
    'SELECT task_id, assignee FROM board_tasks WHERE org_id = $1 AND task_id = ANY($2::text[]) AND assignee IS NOT NULL',
    [orgId, taskIds],
  );
}
