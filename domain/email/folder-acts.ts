import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import { emailWrites as c } from '../../protocol/methods/email/writes.js';
import type { Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { messagesOf, requireRole, roleIn, type MailboxRole } from './access.js';
import { cleanPath, ensureFolder, folderById, folderByRole, folderView, refreshThreads, renamePaths, type FolderRow } from './folders.js';

/*
 * Moving mail between the folders of its mailbox (a message keeps its id, unlike Graph's move), and renaming or
 * deleting folders. A new path in a move creates the folder. Agents may file mail but not hide it: moving to Spam
 * or Trash is a person's act, as are renaming and deleting folders. Events carry folder ids and roles, never a path.
 */

/** The folder and the caller's role in its mailbox; NOT_FOUND unless the caller is a member. */
async function folderAccess(q: Queryable, orgId: string, folderId: string, me: string, lock = false): Promise<{ folder: FolderRow; role: MailboxRole }> {
  const folder = await folderById(q, orgId, folderId, { lock });
  const role = folder ? await roleIn(q, orgId, folder.mailbox_id, me) : null;
  if (!folder || !role) throw notFound(`folder ${folderId}`);
  return { folder, role };
}

export const move = handler(c.move, async (ctx, p) => {
  const me = ctx.principal.id;
  if ((p.folderId === undefined) === (p.path === undefined)) throw badRequest('folderId', 'give folderId or path: one of them');
  const { rows, roles } = await messagesOf(ctx.q, ctx.orgId, p.ids, me, { lock: true });
  const named = new Set(p.ids);
  const draft = rows.find((r) => named.has(r.message_id) && (r.state === 'draft' || r.state === 'discarded'));
  if (draft) throw conflict(`message ${draft.message_id} is a ${draft.state} draft: drafts stay in Drafts (send or discard it instead)`);
  const now = ctx.deps.clock.now().toISOString();
  let target: FolderRow;
  let created = false;
  let role: MailboxRole;
  if (p.folderId !== undefined) {
    ({ folder: target, role } = await folderAccess(ctx.q, ctx.orgId, p.folderId, me));
  } else {
    const boxes = [...new Set(rows.map((r) => r.mailbox_id))];
    if (boxes.length === 0) throw badRequest('ids', 'nothing to move: the threads named hold only drafts');
    if (boxes.length > 1) throw badRequest('ids', 'messages of one mailbox at a time: a path names a folder of one mailbox');
    role = roles.get(boxes[0])!;
    ({ folder: target, created } = await ensureFolder(ctx.q, ctx.orgId, boxes[0], cleanPath(p.path!, 'path'), me, now));
  }
  const elsewhere = rows.find((r) => r.mailbox_id !== target.mailbox_id);
  if (elsewhere) {
    const at = p.ids.findIndex((id) => id === elsewhere.message_id || id === elsewhere.thread_id);
    throw badRequest(`ids.${at}`, `${p.ids[at]} is in another mailbox than folder ${target.folder_id}: mail moves within its mailbox`);
  }
  if (target.role === 'drafts') throw badRequest(p.folderId !== undefined ? 'folderId' : 'path', 'Drafts holds drafts only');
  if (target.role === 'spam' || target.role === 'trash')
    requireRole(role, ['owner', 'reviewer', 'member'], `move mail to ${target.role === 'spam' ? 'Spam' : 'Trash'}`);
  const moved = await ctx.q.query<{ thread_id: string }>(
    `UPDATE email_messages SET folder_id = $3, updated_at = $4 WHERE org_id = $1 AND message_id = ANY($2::text[]) AND folder_id <> $3 RETURNING thread_id`,
    [ctx.orgId, rows.map((r) => r.message_id), target.folder_id, now],
  );
  await refreshThreads(
    ctx.q,
    ctx.orgId,
    moved.map((r) => r.thread_id),
  );
  const changed = moved.length > 0 || created;
  const view = await folderView(ctx.q, ctx.orgId, target, me);
  await ctx.emit('email.message.move', target.folder_id, {
    mailboxId: target.mailbox_id,
    folderId: target.folder_id,
    folderRole: target.role,
    moved: moved.length,
    created,
    ...(changed ? {} : { noop: true }),
  });
  return { folder: view, moved: moved.length, created, changed };
});

/** CONFLICT for a system folder: its name and role are the mailbox's. */
function notSystem(folder: FolderRow, act: string): void {
  if (folder.role !== 'none') throw conflict(`${folder.path} is a system folder (${folder.role}) and cannot be ${act}: make or pick a folder of your own`);
}

export const folderRename = handler(c.folderRename, async (ctx, p) => {
  const me = ctx.principal.id;
  const { folder, role } = await folderAccess(ctx.q, ctx.orgId, p.folderId, me, true);
  requireRole(role, ['owner', 'member'], 'rename folders');
  notSystem(folder, 'renamed');
  const path = cleanPath(p.path, 'path');
  const changed = path !== folder.path;
  let renamed = 0;
  if (changed) {
    const [count] = await ctx.q.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM email_folders WHERE org_id = $1 AND mailbox_id = $2 AND (lower(path) = lower($3) OR left(lower(path), length($3) + 1) = lower($3) || '/')`,
      [ctx.orgId, folder.mailbox_id, folder.path],
    );
    renamed = Number(count?.n ?? 0);
    await renamePaths(ctx.q, ctx.orgId, folder, path);
  }
  const view = await folderView(ctx.q, ctx.orgId, { ...folder, path }, me);
  await ctx.emit('email.folder.rename', folder.folder_id, {
    mailboxId: folder.mailbox_id,
    folderId: folder.folder_id,
    folders: renamed,
    ...(changed ? {} : { noop: true }),
  });
  return { folder: view, changed };
});

export const folderDelete = handler(c.folderDelete, async (ctx, p) => {
  const me = ctx.principal.id;
  const { folder, role } = await folderAccess(ctx.q, ctx.orgId, p.folderId, me, true);
  requireRole(role, ['owner', 'member'], 'delete folders');
  notSystem(folder, 'deleted');
  const gone = await ctx.q.query<{ folder_id: string }>(
    `SELECT folder_id FROM email_folders WHERE org_id = $1 AND mailbox_id = $2 AND role = 'none' AND (lower(path) = lower($3) OR left(lower(path), length($3) + 1) = lower($3) || '/')
      ORDER BY folder_id FOR UPDATE`,
    [ctx.orgId, folder.mailbox_id, folder.path],
  );
  const ids = gone.map((g) => g.folder_id);
  const archive = await folderByRole(ctx.q, ctx.orgId, folder.mailbox_id, 'archive');
  const moved = await ctx.q.query<{ thread_id: string }>(
    `UPDATE email_messages SET folder_id = $3, updated_at = $4 WHERE org_id = $1 AND mailbox_id = $5 AND folder_id = ANY($2::text[]) RETURNING thread_id`,
    [ctx.orgId, ids, archive.folder_id, ctx.deps.clock.now().toISOString(), folder.mailbox_id],
  );
  await refreshThreads(
    ctx.q,
    ctx.orgId,
    moved.map((r) => r.thread_id),
  );
  await ctx.q.query('DELETE FROM email_folders WHERE org_id = $1 AND folder_id = ANY($2::text[])', [ctx.orgId, ids]);
  await ctx.emit('email.folder.delete', folder.folder_id, {
    mailboxId: folder.mailbox_id,
    folderId: folder.folder_id,
    folders: ids.length,
    moved: moved.length,
    archiveFolderId: archive.folder_id,
  });
  return { deleted: ids.length, moved: moved.length, changed: true };
});
