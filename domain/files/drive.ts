import type { z } from 'zod';
import { badRequest } from '../../protocol/errors.js';
import { drive as c } from '../../protocol/methods/files/drive.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { callerOf, fileAccess, READABLE_FILE_SQL, type FileRow } from './access.js';
import { kindContent } from './kinds.js';
import { grantsReaching } from './grants.js';
import { recentExports } from './export.js';
import { activeFile, eventIds, fileView, filesFor, insertFile, setHead, targetFolder } from './model.js';
import { holdUpload, prepareUpload, type PreparedUpload } from './upload.js';
import { teamIdsOf } from '../people/index.js';

/*
 * files.get and files.create, rename, duplicate, star: one file at a time. Move, trash, sharing, uploads and
 * exports have their own modules. Every event names ids, kinds, sizes and hashes; never a name.
 */

export const get = handler(c.get, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const caller = callerOf(ctx.principal);
  const { file, role } = await fileAccess(ctx.q, ctx.orgId, p.fileId, caller, 'viewer', { now });
  // Breadcrumbs: the folders above, as far up as the caller may read (a restricted folder may stop it).
  const teams = await teamIdsOf(ctx.q, ctx.orgId, caller.id);
  const above = await ctx.q.query<{ file_id: string; name: string; readable: boolean }>(
    `WITH RECURSIVE up(file_id, parent_id, depth) AS (
       SELECT file_id, parent_id, 0 FROM files WHERE org_id = $1 AND file_id = $5
       UNION ALL SELECT p.file_id, p.parent_id, up.depth + 1 FROM files p JOIN up ON p.org_id = $1 AND p.file_id = up.parent_id WHERE up.depth < 200)
     SELECT f.file_id, f.name, ($6::boolean OR ${READABLE_FILE_SQL('$1', '$2', '$3', '$4')}) AS readable
       FROM up JOIN files f ON f.org_id = $1 AND f.file_id = up.file_id WHERE up.depth > 0 ORDER BY up.depth DESC`,
    [ctx.orgId, caller.id, teams, now.toISOString(), file.file_id, caller.admin],
  );
  const firstHidden = above.map((a) => a.readable).lastIndexOf(false);
  return {
    file: (await filesFor(ctx.q, ctx.orgId, caller.id, [file]))[0],
    myRole: role,
    path: above.slice(firstHidden + 1).map((a) => ({ id: a.file_id, name: a.name })),
    grants: await grantsReaching(ctx.q, ctx.orgId, file, role, now),
    exports: await recentExports(ctx.q, ctx.orgId, file.file_id),
  };
});

/** What create refuses before anything is read or stored. */
function checkCreate(p: z.output<typeof c.create.params>): void {
  if (p.restricted && p.kind !== 'folder') throw badRequest('restricted', 'only a folder is restricted (a file inherits from its folder)');
  if (p.kind !== 'folder' && p.kind !== 'upload' && !kindContent(p.kind)) throw badRequest('kind', `${p.kind} is not available on this server yet`);
  if (p.kind === 'folder' && p.content !== undefined) throw badRequest('content', 'a folder has no content');
  if (p.reviewMode && p.kind !== 'doc') throw badRequest('reviewMode', 'only a doc has a review mode');
}

export const create = handler(
  c.create,
  async (ctx, p, prepared: PreparedUpload | undefined) => {
    const now = ctx.deps.clock.now();
    const at = now.toISOString();
    const caller = callerOf(ctx.principal);
    checkCreate(p);
    const native = p.kind === 'folder' || p.kind === 'upload' ? undefined : kindContent(p.kind);
    const parent = p.parentId === undefined ? null : await targetFolder(ctx.q, ctx.orgId, p.parentId, caller, now);
    const fileId = newId('fil');
    let row: FileRow = await insertFile(ctx.q, ctx.orgId, {
      fileId,
      kind: p.kind,
      name: p.name,
      parent,
      restricted: p.restricted ?? false,
      reviewMode: p.reviewMode ?? false,
      by: caller.id,
      at,
      ...(prepared ? { revision: 1, sizeBytes: prepared.size, sha256: prepared.sha256, contentType: prepared.contentType, bodyText: prepared.text } : {}),
    });
    if (prepared) await holdUpload(ctx.q, ctx.orgId, fileId, 1, prepared, caller.id, at, 'content.sha256');
    if (native) row = await setHead(ctx.q, ctx.orgId, fileId, await native.create(ctx.q, ctx.orgId, fileId, caller.id, p.content, now), caller.id, at);
    const file = (await filesFor(ctx.q, ctx.orgId, caller.id, [row]))[0];
    await ctx.emit('files.file.create', fileId, { ...eventIds(row), restricted: row.restricted, contentType: row.content_type });
    return { file };
  },
  {
    prepare: async (ctx, p) => {
      checkCreate(p);
      return p.kind === 'upload' ? prepareUpload(ctx, p.content, 'content') : undefined;
    },
  },
);

export const rename = handler(c.rename, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const caller = callerOf(ctx.principal);
  const { file } = await activeFile(ctx.q, ctx.orgId, p.fileId, caller, 'editor', now);
  const same = file.name === p.name;
  if (!same) {
    await ctx.q.query('UPDATE files SET name = $3, updated_by = $4, updated_at = $5 WHERE org_id = $1 AND file_id = $2', [
      ctx.orgId,
      p.fileId,
      p.name,
      caller.id,
      now.toISOString(),
    ]);
  }
  const view = await fileView(ctx.q, ctx.orgId, caller.id, p.fileId);
  await ctx.emit('files.file.rename', p.fileId, { fileId: p.fileId, kind: file.kind, ...(same ? { noop: true } : {}) });
  return { file: view, changed: !same };
});

export const duplicate = handler(c.duplicate, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const at = now.toISOString();
  const caller = callerOf(ctx.principal);
  const { file } = await activeFile(ctx.q, ctx.orgId, p.fileId, caller, 'viewer', now, false);
  if (file.kind === 'folder') throw badRequest('fileId', `${p.fileId} is a folder: duplicate the files in it one by one`);
  const native = file.kind === 'upload' ? undefined : kindContent(file.kind);
  if (file.kind !== 'upload' && !native) throw badRequest('fileId', `${file.kind} files are not available on this server yet`);
  const parentId = p.parentId ?? file.parent_id;
  const parent = parentId === null ? null : await targetFolder(ctx.q, ctx.orgId, parentId, caller, now, p.parentId ? 'parentId' : 'fileId');
  const fileId = newId('fil');
  const [body] = await ctx.q.query<{ body_text: string | null }>('SELECT body_text FROM files WHERE org_id = $1 AND file_id = $2', [ctx.orgId, file.file_id]);
  let row = await insertFile(ctx.q, ctx.orgId, {
    fileId,
    kind: file.kind,
    name: p.name ?? `Copy of ${file.name}`.slice(0, 255),
    parent,
    restricted: false,
    by: caller.id,
    at,
    ...(file.kind === 'upload'
      ? { revision: 1, sizeBytes: Number(file.size_bytes), sha256: file.sha256, contentType: file.content_type, bodyText: body?.body_text ?? null }
      : {}),
  });
  if (file.kind === 'upload' && file.sha256) {
    // The copy holds the same bytes under a reference of its own (the caller may read the original: no uploader check).
    await holdUpload(
      ctx.q,
      ctx.orgId,
      fileId,
      1,
      { sha256: file.sha256, size: Number(file.size_bytes), contentType: file.content_type ?? 'application/octet-stream' },
      caller.id,
      at,
    );
  }
  if (native) row = await setHead(ctx.q, ctx.orgId, fileId, await native.duplicate(ctx.q, ctx.orgId, file.file_id, fileId, caller.id, now), caller.id, at);
  const view = (await filesFor(ctx.q, ctx.orgId, caller.id, [row]))[0];
  await ctx.emit('files.file.duplicate', fileId, { ...eventIds(row), fromFileId: file.file_id });
  return { file: view };
});

export const star = handler(c.star, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const caller = callerOf(ctx.principal);
  await fileAccess(ctx.q, ctx.orgId, p.fileId, caller, 'viewer', { now });
  const rows = p.starred
    ? await ctx.q.query(`INSERT INTO file_stars (org_id, principal_id, file_id, starred_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1 AS x`, [
        ctx.orgId,
        caller.id,
        p.fileId,
        now.toISOString(),
      ])
    : await ctx.q.query('DELETE FROM file_stars WHERE org_id = $1 AND principal_id = $2 AND file_id = $3 RETURNING 1 AS x', [ctx.orgId, caller.id, p.fileId]);
  const changed = rows.length > 0;
  const view = await fileView(ctx.q, ctx.orgId, caller.id, p.fileId);
  await ctx.emit('files.star.set', p.fileId, { fileId: p.fileId, starred: p.starred, ...(changed ? {} : { noop: true }) });
  return { file: view, changed };
});
