import { one } from '../../db/types.js';
import { notFound } from '../../protocol/errors.js';
import { board as c } from '../../protocol/methods/board.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { ATTACHMENT_COLUMNS, getTask, toAttachment, type AttachmentRow } from './model.js';

/**
 * Attachments are references to files kept elsewhere (a URL plus a name, MIME type and size). The URL may
 * carry a signed token, so it is stored but never written to the ledger.
 */

export const addTaskAttachment = handler(c.addTaskAttachment, async (ctx, p) => {
  await getTask(ctx.q, ctx.orgId, p.taskId, 'FOR KEY SHARE');
  const row = one(
    await ctx.q.query<AttachmentRow>(
      `INSERT INTO board_attachments (org_id, attachment_id, task_id, name, url, mime_type, size_bytes, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${ATTACHMENT_COLUMNS}`,
      [ctx.orgId, newId('att'), p.taskId, p.name, p.url, p.mimeType ?? null, p.sizeBytes ?? null, ctx.principal.id],
    ),
  );
  const att = toAttachment(row);
  await ctx.emit('item.attachment.added', att.taskId, { attachmentId: att.id, name: att.name, mimeType: att.mimeType, sizeBytes: att.sizeBytes });
  return att;
});

const UPDATABLE = [
  ['name', 'name'],
  ['url', 'url'],
  ['mimeType', 'mime_type'],
  ['sizeBytes', 'size_bytes'],
] as const;

export const updateTaskAttachment = handler(c.updateTaskAttachment, async (ctx, p) => {
  const sets: string[] = [];
  const args: unknown[] = [ctx.orgId, p.attachmentId];
  const fields: string[] = [];
  for (const [field, column] of UPDATABLE) {
    if (p[field] === undefined) continue;
    args.push(p[field]);
    sets.push(`${column} = $${args.length}`);
    fields.push(field);
  }
  const [row] = await ctx.q.query<AttachmentRow>(
    `UPDATE board_attachments SET ${sets.join(', ')}, updated_at = now() WHERE org_id = $1 AND attachment_id = $2 RETURNING ${ATTACHMENT_COLUMNS}`,
    args,
  );
  if (!row) throw notFound(`attachment ${p.attachmentId}`);
  const att = toAttachment(row);
  await ctx.emit('item.attachment.updated', att.taskId, { attachmentId: att.id, fields, name: att.name });
  return att;
});

/**
 * Removing an attachment erases what cannot be restored: an agent's call holds in retry mode (file the approval,
 * a human approves, retry with the proof). Humans remove directly.
 */
export const removeTaskAttachment = handler(c.removeTaskAttachment, async (ctx, p) => {
  const [att] = await ctx.q.query<{ task_id: string; name: string; title: string }>(
    `SELECT a.task_id, a.name, t.title FROM board_attachments a JOIN board_tasks t ON t.org_id = a.org_id AND t.task_id = a.task_id
        WHERE a.org_id = $1 AND a.attachment_id = $2 FOR UPDATE OF a`,
    [ctx.orgId, p.attachmentId],
  );
  if (!att) throw notFound(`attachment ${p.attachmentId}`);
  const proof =
    ctx.principal.kind === 'agent'
      ? await ctx.requireSignature({
          actionClass: 'board.remove_task_attachment',
          subjectId: p.attachmentId,
          summary: `Remove the attachment "${att.name}" from the item "${att.title}"`,
          params: p,
        })
      : null;
  await ctx.q.query('DELETE FROM board_attachments WHERE org_id = $1 AND attachment_id = $2', [ctx.orgId, p.attachmentId]);
  await ctx.emit('item.attachment.removed', att.task_id, {
    attachmentId: p.attachmentId,
    name: att.name,
    ...(proof ? { approvalId: proof.approvalId } : {}),
  });
  return { attachmentId: p.attachmentId, taskId: att.task_id, removed: true as const };
});

export const taskAttachments = handler(c.taskAttachments, async (ctx, p) => {
  await getTask(ctx.q, ctx.orgId, p.taskId);
  const rows = await ctx.q.query<AttachmentRow>(
    `SELECT ${ATTACHMENT_COLUMNS} FROM board_attachments WHERE org_id = $1 AND task_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
    [ctx.orgId, p.taskId, p.cursor, p.limit + 1],
  );
  const more = rows.length > p.limit;
  const shown = rows.slice(0, p.limit);
  return { attachments: shown.map(toAttachment), nextCursor: more ? shown[shown.length - 1].seq : null };
});
