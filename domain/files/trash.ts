import { ApiError, badRequest, conflict, notFound } from '../../protocol/errors.js';
import { drive as c } from '../../protocol/methods/files/drive.js';
import type { Queryable, TxQueryable } from '../../db/types.js';
import { releaseHolder } from '../../blobs/index.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { callerOf, FILE_COLUMNS, roleOn, roleRank, type FileRole, type FileRow } from './access.js';
import { kindContent } from './kinds.js';
import { activeFile, eventIds, fileView, setHead } from './model.js';

/*
 * Trash and recovery. A delete moves the file and its active subtree to the trash (trashed_root = the deleted
 * file, so recovering it brings back exactly what it took). permanent:true purges a trashed file and everything
 * below it for good (manager): its blobs are released for GC, its grants revoked, its text erased; from an agent it
 * holds for a human (action class files.delete, the method's own). A purge found already done is changed:false.
 */

/** The file and everything below it (by parent, through restricted folders too), not yet purged. */
async function subtree(q: Queryable, orgId: string, fileId: string): Promise<{ file_id: string; status: FileRow['status'] }[]> {
  return q.query(
    `WITH RECURSIVE down(file_id, depth) AS (
       SELECT file_id, 0 FROM files WHERE org_id = $1 AND file_id = $2
       UNION ALL SELECT f.file_id, down.depth + 1 FROM files f JOIN down ON f.org_id = $1 AND f.parent_id = down.file_id WHERE down.depth < 10000)
     SELECT f.file_id, f.status FROM down JOIN files f ON f.org_id = $1 AND f.file_id = down.file_id WHERE f.status <> 'purged'`,
    [orgId, fileId],
  );
}

/** The row (purged ones too) and the caller's role, requiring `need`; no role: NOT_FOUND. */
async function lockedWithRole(ctx: HandlerCtx, fileId: string, need: FileRole): Promise<{ file: FileRow; role: FileRole }> {
  const [file] = await ctx.q.query<FileRow>(`SELECT ${FILE_COLUMNS} FROM files f WHERE f.org_id = $1 AND f.file_id = $2 FOR UPDATE`, [ctx.orgId, fileId]);
  const role = file ? await roleOn(ctx.q, ctx.orgId, file, callerOf(ctx.principal), ctx.deps.clock.now()) : null;
  if (!file || role === null) throw notFound(`file ${fileId}`);
  if (roleRank(role) < roleRank(need)) throw new ApiError('FORBIDDEN_SCOPE', `missing role ${need} on ${fileId} (you are ${role}): ask a manager of it`);
  return { file, role };
}

/** Release every blob the files hold (each upload version, the kind's own, each export) and erase their content. */
async function purgeRows(ctx: HandlerCtx, ids: string[], by: string, at: string): Promise<string[]> {
  const q = ctx.q as TxQueryable;
  const holders = [
    ...ids,
    ...(
      await q.query<{ h: string }>(`SELECT file_id || '#v' || version AS h FROM file_versions WHERE org_id = $1 AND file_id = ANY($2::text[])`, [
        ctx.orgId,
        ids,
      ])
    ).map((r) => r.h),
    ...(await q.query<{ h: string }>(`SELECT export_id AS h FROM file_exports WHERE org_id = $1 AND file_id = ANY($2::text[])`, [ctx.orgId, ids])).map(
      (r) => r.h,
    ),
  ];
  const released = new Set<string>();
  for (const holder of holders) for (const sha of await releaseHolder(q, { orgId: ctx.orgId, holder })) released.add(sha);
  const kinds = await q.query<{ file_id: string; kind: string }>(`SELECT file_id, kind FROM files WHERE org_id = $1 AND file_id = ANY($2::text[])`, [
    ctx.orgId,
    ids,
  ]);
  for (const k of kinds) await kindContent(k.kind)?.purge?.(q, ctx.orgId, k.file_id);
  await q.query(
    `UPDATE files SET status = 'purged', trashed_at = NULL, body_text = NULL, updated_by = $3, updated_at = $4 WHERE org_id = $1 AND file_id = ANY($2::text[])`,
    [ctx.orgId, ids, by, at],
  );
  await q.query(`UPDATE file_grants SET revoked_at = $3, revoked_by = $4 WHERE org_id = $1 AND file_id = ANY($2::text[]) AND revoked_at IS NULL`, [
    ctx.orgId,
    ids,
    at,
    by,
  ]);
  await q.query(`DELETE FROM file_stars WHERE org_id = $1 AND file_id = ANY($2::text[])`, [ctx.orgId, ids]);
  return [...released].sort();
}

export const del = handler(c.delete, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const at = now.toISOString();
  const caller = callerOf(ctx.principal);
  if (!p.permanent) {
    const { file } = await lockedWithRole(ctx, p.fileId, 'editor');
    if (file.status === 'purged') throw notFound(`file ${p.fileId}`);
    if (file.status === 'trashed') {
      const view = await fileView(ctx.q, ctx.orgId, caller.id, p.fileId);
      await ctx.emit('files.file.trash', p.fileId, { ...eventIds(file), files: 0, noop: true });
      return { file: view, status: 'trashed', files: 0, changed: false };
    }
    const ids = (await subtree(ctx.q, ctx.orgId, p.fileId)).filter((r) => r.status === 'active').map((r) => r.file_id);
    await ctx.q.query(
      `UPDATE files SET status = 'trashed', trashed_root = $3, trashed_at = $4, trashed_by = $5 WHERE org_id = $1 AND file_id = ANY($2::text[])`,
      [ctx.orgId, ids, p.fileId, at, caller.id],
    );
    const view = await fileView(ctx.q, ctx.orgId, caller.id, p.fileId);
    await ctx.emit('files.file.trash', p.fileId, { ...eventIds(file), files: ids.length });
    return { file: view, status: 'trashed', files: ids.length, changed: true };
  }
  const { file } = await lockedWithRole(ctx, p.fileId, 'manager');
  if (file.status === 'active') throw conflict(`file ${p.fileId} is not in the trash: delete it without permanent first, then purge it from the trash`);
  const ids = file.status === 'purged' ? [] : (await subtree(ctx.q, ctx.orgId, p.fileId)).map((r) => r.file_id);
  const hold =
    ctx.principal.kind === 'agent'
      ? {
          actionClass: 'files.delete',
          subjectId: p.fileId,
          summary: `Purge ${file.kind} ${p.fileId}${ids.length > 1 ? ` and the ${ids.length - 1} files below it` : ''} from the trash for good: content erased, bytes released, cannot be recovered`,
          params: p,
        }
      : null;
  if (file.status === 'purged') {
    if (hold) await ctx.verifyProof(hold);
    const view = await fileView(ctx.q, ctx.orgId, caller.id, p.fileId);
    await ctx.emit('files.file.purge', p.fileId, { ...eventIds(file), files: 0, blobsReleased: 0, noop: true });
    return { file: view, status: 'purged', files: 0, changed: false };
  }
  const proof = hold ? await ctx.requireSignature(hold) : null;
  const released = await purgeRows(ctx, ids, caller.id, at);
  const view = await fileView(ctx.q, ctx.orgId, caller.id, p.fileId);
  await ctx.emit('files.file.purge', p.fileId, {
    ...eventIds(file),
    files: ids.length,
    blobsReleased: released.length,
    ...(proof ? { approvalId: proof.approvalId } : {}),
  });
  return { file: view, status: 'purged', files: ids.length, changed: true };
});

export const recover = handler(c.recover, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const at = now.toISOString();
  const caller = callerOf(ctx.principal);
  if (p.toRevision !== undefined) {
    const { file } = await activeFile(ctx.q, ctx.orgId, p.fileId, caller, 'editor', now);
    const kind = file.kind === 'folder' || file.kind === 'upload' ? undefined : kindContent(file.kind);
    if (!kind)
      throw badRequest(
        'toRevision',
        `a ${file.kind} has no revisions to restore${file.kind === 'upload' ? ': register the old bytes again (files.uploadRegister with fileId)' : ''}`,
      );
    if (p.toRevision > Number(file.revision)) throw badRequest('toRevision', `the head is revision ${file.revision}`);
    if (p.toRevision === Number(file.revision)) {
      const view = await fileView(ctx.q, ctx.orgId, caller.id, p.fileId);
      await ctx.emit('files.file.recover', p.fileId, { ...eventIds(file), toRevision: p.toRevision, files: 0, noop: true });
      return { file: view, files: 0, changed: false };
    }
    const row = await setHead(ctx.q, ctx.orgId, p.fileId, await kind.restoreRevision(ctx.q, ctx.orgId, p.fileId, p.toRevision, caller.id, now), caller.id, at);
    const view = await fileView(ctx.q, ctx.orgId, caller.id, p.fileId);
    await ctx.emit('files.file.recover', p.fileId, { ...eventIds(row), toRevision: p.toRevision, files: 1 });
    return { file: view, files: 1, changed: true };
  }
  const { file } = await lockedWithRole(ctx, p.fileId, 'editor');
  if (file.status === 'purged') throw notFound(`file ${p.fileId}`);
  if (file.status === 'active') throw conflict(`file ${p.fileId} is active, not in the trash: nothing to recover (toRevision restores an old revision)`);
  if (file.trashed_root !== p.fileId)
    throw conflict(`file ${p.fileId} went to the trash with ${file.trashed_root}: recover ${file.trashed_root} (files.recover) to bring it back`);
  if (file.parent_id) {
    const [parent] = await ctx.q.query<{ status: string; trashed_root: string | null }>(
      'SELECT status, trashed_root FROM files WHERE org_id = $1 AND file_id = $2',
      [ctx.orgId, file.parent_id],
    );
    if (parent?.status === 'trashed')
      throw conflict(`its folder ${file.parent_id} is in the trash too: recover ${parent.trashed_root ?? file.parent_id} first`);
  }
  const rows = await ctx.q.query(
    `UPDATE files SET status = 'active', trashed_root = NULL, trashed_at = NULL, trashed_by = NULL
      WHERE org_id = $1 AND trashed_root = $2 AND status = 'trashed' RETURNING 1 AS x`,
    [ctx.orgId, p.fileId],
  );
  const view = await fileView(ctx.q, ctx.orgId, caller.id, p.fileId);
  await ctx.emit('files.file.recover', p.fileId, { ...eventIds(file), files: rows.length });
  return { file: view, files: rows.length, changed: true };
});
