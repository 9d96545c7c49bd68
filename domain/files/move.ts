import { badRequest } from '../../protocol/errors.js';
import { drive as c } from '../../protocol/methods/files/drive.js';
import { one, type Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { callerOf, placeUnder } from './access.js';
import { activeFile, fileView, targetFolder } from './model.js';

/*
 * files.move: a new parent (or the root) for a file and its subtree. Access paths change in one UPDATE: every file
 * whose path passes through the moved one (found by the GIN index on access_path) gets the new prefix and the new
 * reach of the org's root grant. A restricted folder keeps its own path, so moving it rewrites nothing below it;
 * nor does anything below a restricted folder inside the subtree (its path starts there).
 */

/** Walk up from `folderId`: whether `fileId` is that folder or one of its ancestors (a move would close a cycle). */
async function isAtOrAbove(q: Queryable, orgId: string, fileId: string, folderId: string): Promise<boolean> {
  const row = one(
    await q.query<{ hit: boolean }>(
      `WITH RECURSIVE up(file_id, parent_id, depth) AS (
       SELECT file_id, parent_id, 0 FROM files WHERE org_id = $1 AND file_id = $2
       UNION ALL SELECT p.file_id, p.parent_id, up.depth + 1 FROM files p JOIN up ON p.org_id = $1 AND p.file_id = up.parent_id WHERE up.depth < 10000)
     SELECT EXISTS (SELECT 1 FROM up WHERE file_id = $3) AS hit`,
      [orgId, folderId, fileId],
    ),
  );
  return row.hit;
}

export const move = handler(c.move, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const at = now.toISOString();
  const caller = callerOf(ctx.principal);
  const { file } = await activeFile(ctx.q, ctx.orgId, p.fileId, caller, 'editor', now);
  const ids = { fileId: file.file_id, kind: file.kind, fromParentId: file.parent_id, toParentId: p.parentId };
  if (file.parent_id === p.parentId) {
    const view = await fileView(ctx.q, ctx.orgId, caller.id, p.fileId);
    await ctx.emit('files.file.move', p.fileId, { ...ids, pathsRewritten: 0, noop: true });
    return { file: view, changed: false };
  }
  if (p.parentId === p.fileId) throw badRequest('parentId', `a file cannot be moved into itself`);
  const parent = p.parentId === null ? null : await targetFolder(ctx.q, ctx.orgId, p.parentId, caller, now);
  if (parent && (await isAtOrAbove(ctx.q, ctx.orgId, p.fileId, parent.file_id))) {
    throw badRequest('parentId', `${p.parentId} is inside ${p.fileId}: a folder cannot be moved below itself`);
  }
  const place = placeUnder(parent, file.file_id, file.restricted);
  await ctx.q.query('UPDATE files SET parent_id = $3, updated_by = $4, updated_at = $5 WHERE org_id = $1 AND file_id = $2', [
    ctx.orgId,
    p.fileId,
    p.parentId,
    caller.id,
    at,
  ]);
  let rewritten = 0;
  if (!file.restricted) {
    // The subtree's paths: the new prefix, then each path from the moved file down.
    const rows = await ctx.q.query(
      `UPDATE files SET access_path = $3::text[] || access_path[array_position(access_path, $2) + 1:], open_to_org = $4
        WHERE org_id = $1 AND access_path @> ARRAY[$2::text] RETURNING 1 AS x`,
      [ctx.orgId, p.fileId, place.accessPath, place.openToOrg],
    );
    rewritten = rows.length;
  }
  const view = await fileView(ctx.q, ctx.orgId, caller.id, p.fileId);
  await ctx.emit('files.file.move', p.fileId, { ...ids, pathsRewritten: rewritten, openToOrg: place.openToOrg });
  return { file: view, changed: true };
});
