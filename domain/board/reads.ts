import { one } from '../../db/types.js';
import { WORK_TYPES } from '../../protocol/methods/board.js';
import { CONTEXT_ATTACHMENTS, CONTEXT_COMMENTS, boardReadContracts as c } from '../../protocol/reads/board.js';
import { reads } from '../core/family.js';
import { readHandler } from '../core/handler.js';
import { taskOffer } from './task-offer.js';
import {
  ATTACHMENT_COLUMNS,
  COMMENT_COLUMNS,
  NO_OPEN_BLOCKER,
  TASK_COLUMNS,
  findWorkstream,
  getTask,
  getWorkstream,
  openBlockers,
  priorityRank,
  taskColumns,
  toAttachment,
  toComment,
  toTask,
  toWorkstream,
  type AttachmentRow,
  type CommentRow,
  type TaskRow,
} from './model.js';

/**
 * GET /board.context and GET /board.ready. Reads run outside a transaction and never write. The context shows a
 * pending handoff offer of the item, contributed under `taskOffer` (task-offer.ts; expiry read from the clock).
 */

export const context = readHandler(c['board.context'], async (ctx, query) => {
  const { q, orgId } = ctx;
  const row = await getTask(q, orgId, query.taskId);
  const [workstream, parent, children, links, comments, attachments, counts, blockers, handoff] = await Promise.all([
    row.workstream_id ? findWorkstream(q, orgId, row.workstream_id) : undefined,
    row.parent_id ? getTask(q, orgId, row.parent_id) : undefined,
    q.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM board_tasks WHERE org_id = $1 AND parent_id = $2 ORDER BY created_at, position, task_id`, [
      orgId,
      row.task_id,
    ]),
    q.query<{
      link_id: string;
      relation: 'blocks' | 'relates' | 'duplicates';
      direction: 'outgoing' | 'incoming';
      other: string;
      title: string;
      col: TaskRow['col'];
      created_at: string;
    }>(
      `SELECT l.link_id, l.relation, CASE WHEN l.from_task_id = $2 THEN 'outgoing' ELSE 'incoming' END AS direction,
              o.task_id AS other, o.title, o.col, l.created_at
         FROM board_links l
         JOIN board_tasks o ON o.org_id = l.org_id AND o.task_id = CASE WHEN l.from_task_id = $2 THEN l.to_task_id ELSE l.from_task_id END
        WHERE l.org_id = $1 AND (l.from_task_id = $2 OR l.to_task_id = $2)
        ORDER BY l.created_at, l.link_id`,
      [orgId, row.task_id],
    ),
    q.query<CommentRow>(
      `SELECT * FROM (SELECT ${COMMENT_COLUMNS} FROM board_comments WHERE org_id = $1 AND task_id = $2 ORDER BY seq DESC LIMIT $3) latest ORDER BY seq`,
      [orgId, row.task_id, CONTEXT_COMMENTS],
    ),
    q.query<AttachmentRow>(`SELECT ${ATTACHMENT_COLUMNS} FROM board_attachments WHERE org_id = $1 AND task_id = $2 ORDER BY seq LIMIT $3`, [
      orgId,
      row.task_id,
      CONTEXT_ATTACHMENTS,
    ]),
    q.query<{ comments: number; attachments: number }>(
      `SELECT (SELECT count(*)::int FROM board_comments WHERE org_id = $1 AND task_id = $2) AS comments,
              (SELECT count(*)::int FROM board_attachments WHERE org_id = $1 AND task_id = $2) AS attachments`,
      [orgId, row.task_id],
    ),
    openBlockers(q, orgId, row.task_id),
    taskOffer(ctx.deps.families, q, orgId, row.task_id, ctx.deps.clock.now()),
  ]);
  return {
    task: toTask(row),
    workstream: workstream ? toWorkstream(workstream) : null,
    parent: parent ? toTask(parent) : null,
    children: children.map(toTask),
    links: links.map((l) => ({
      id: l.link_id,
      relation: l.relation,
      direction: l.direction,
      taskId: l.other,
      title: l.title,
      col: l.col,
      createdAt: l.created_at,
    })),
    comments: comments.map(toComment),
    commentCount: one(counts).comments,
    attachments: attachments.map(toAttachment),
    attachmentCount: one(counts).attachments,
    openBlockers: blockers,
    pendingHandoff: handoff,
  };
});

export const ready = readHandler(c['board.ready'], async (ctx, query) => {
  if (query.workstreamId) await getWorkstream(ctx.q, ctx.orgId, query.workstreamId); // NOT_FOUND, not an empty list
  const types = query.type ? [query.type] : [...WORK_TYPES];
  const rows = await ctx.q.query<TaskRow>(
    `SELECT ${taskColumns('t')} FROM board_tasks t
      WHERE t.org_id = $1 AND t.type = ANY($2::text[]) AND t.col NOT IN ('done', 'blocked')
        AND (t.claimed_by IS NULL OR t.claim_expires_at <= now())
        AND ($3::text IS NULL OR t.workstream_id = $3)
        AND ${NO_OPEN_BLOCKER}
      ORDER BY ${priorityRank('t.priority')}, t.created_at, t.task_id
      LIMIT $4`,
    [ctx.orgId, types, query.workstreamId ?? null, query.limit],
  );
  return { tasks: rows.map(toTask) };
});

export const boardReads = reads({ 'board.context': context, 'board.ready': ready });
