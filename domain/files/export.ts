import { Readable } from 'node:stream';
import type { z } from 'zod';
import { ApiError, badRequest } from '../../protocol/errors.js';
import { drive as c, EXPORT_URL_TTL_MS, type Export } from '../../protocol/methods/files/drive.js';
import { one, type Queryable, type TxQueryable } from '../../db/types.js';
import { heldBlob, referenceBlob, type BlobService } from '../../blobs/index.js';
import type { Logger } from '../core/deps.js';
import type { SignedRecordCheck } from '../core/family.js';
import { handler, type PrepareCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { activeWithAdmin } from '../people/index.js';
import { callerOf, fileAccess, type FileRow } from './access.js';
import { kindContent, type ExportEnv } from './kinds.js';

/*
 * files.exportRequest: the only download route, so every egress is a ledger event naming the bytes (sha256, size).
 * An upload leaves as its original blob (any version); a native file is rendered by its kind (kindContent.exportAs)
 * before the transaction, stored as a blob the export holds (exp_…). The answer is a signed download path valid
 * 15 minutes, issued after the role check and bound to the export and its requester: every download checks again
 * that the file is live and the requester may still read it (exportServable). A kind may embed the blobs its file
 * holds (exportEnv), nothing else.
 */

export type ExportView = z.infer<typeof Export>;

interface ExportRow {
  export_id: string;
  file_id: string;
  format: string;
  revision: number;
  sha256: string;
  size_bytes: string | number;
  content_type: string;
  created_by: string;
  created_at: string | Date;
}

const EXPORT_COLUMNS = 'export_id, file_id, format, revision, sha256, size_bytes, content_type, created_by, created_at';

const toExport = (r: ExportRow): ExportView => ({
  id: r.export_id,
  fileId: r.file_id,
  format: r.format,
  revision: Number(r.revision),
  sha256: r.sha256,
  sizeBytes: Number(r.size_bytes),
  contentType: r.content_type,
  createdBy: r.created_by,
  createdAt: new Date(r.created_at).toISOString(),
});

/** A file's latest exports (files.get). */
export async function recentExports(q: Queryable, orgId: string, fileId: string, limit = 20): Promise<ExportView[]> {
  const rows = await q.query<ExportRow>(
    `SELECT ${EXPORT_COLUMNS} FROM file_exports WHERE org_id = $1 AND file_id = $2 ORDER BY created_at DESC, export_id DESC LIMIT $3`,
    [orgId, fileId, limit],
  );
  return rows.map(toExport);
}

interface Rendered {
  sha256: string;
  size: number;
  contentType: string;
}

/** The formats a file offers: BAD_REQUEST params.format names them when the asked one is not among them. */
function checkFormat(file: FileRow, format: string): void {
  if (file.kind === 'folder') throw badRequest('fileId', `${file.file_id} is a folder: export the files in it`);
  if (file.kind === 'upload') {
    if (format !== 'original') throw badRequest('format', 'an upload exports as original (its bytes as uploaded)');
    return;
  }
  const kind = kindContent(file.kind);
  if (!kind) throw badRequest('fileId', `${file.kind} files are not available on this server yet`);
  if (!kind.exportFormats.includes(format)) throw badRequest('format', `a ${file.kind} exports as ${kind.exportFormats.join(', ')}`);
}

/** How much of the file's own blobs an export may embed: past either, the kind shows a placeholder instead. */
export const EXPORT_BLOB_LIMITS = { perBlob: 20 * 1024 * 1024, total: 100 * 1024 * 1024 };

/** A blob's bytes, at most `size` of them (more means the store disagrees with the row: none). */
async function readAll(stream: AsyncIterable<unknown> & { destroy(): void }, size: number): Promise<Buffer | null> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of stream) {
    const b = chunk as Buffer;
    n += b.length;
    if (n > size) {
      stream.destroy();
      return null;
    }
    parts.push(b);
  }
  return n === size ? Buffer.concat(parts, n) : null;
}

/**
 * What a kind's exportAs may use beyond its rows: the requester's scopes, and the blobs `fileId` holds (holder =
 * the file id in blob_refs), each read once, within EXPORT_BLOB_LIMITS. The budget is spent in the order the kind
 * asks, so a kind that asks in its own order (a deck: slide by slide) leaves out the same images every time.
 */
export function exportEnv(
  db: Queryable,
  deps: { blobs: BlobService; log: Logger },
  orgId: string,
  fileId: string,
  scopes: ReadonlySet<string>,
  limits = EXPORT_BLOB_LIMITS,
): ExportEnv {
  const read = new Map<string, Promise<{ bytes: Buffer; contentType: string } | null>>();
  let left = limits.total;
  const load = async (sha256: string) => {
    const held = await heldBlob(db, { orgId, sha256, holder: fileId });
    if (!held) return null;
    const { size, contentType } = held;
    if (size > limits.perBlob || size > left) return null;
    left -= size;
    try {
      const bytes = await readAll(await deps.blobs.open({ orgId, sha256, size, contentType }), size);
      if (bytes) return { bytes, contentType };
    } catch (err) {
      // Bytes gone under a live row: the export still renders (a placeholder); anything else fails it.
      if (!(err instanceof Error && err.name === 'BlobMissingError')) throw err;
    }
    left += size;
    deps.log.warn({ orgId, fileId, sha256 }, 'export: a held blob has no bytes of its size in the store; a placeholder shows instead');
    return null;
  };
  return {
    scopes,
    blob(sha256) {
      let got = read.get(sha256);
      if (!got) read.set(sha256, (got = load(sha256)));
      return got;
    },
  };
}

/** Before the transaction: the role check, and a native file rendered and stored as a blob. */
async function render(ctx: PrepareCtx, p: z.output<typeof c.exportRequest.params>): Promise<Rendered | undefined> {
  const { file } = await fileAccess(ctx.db, ctx.orgId, p.fileId, callerOf(ctx.principal), 'viewer', { now: ctx.deps.clock.now() });
  checkFormat(file, p.format);
  if (file.kind === 'upload') return undefined;
  if (p.revision !== undefined && p.revision > Number(file.revision)) throw badRequest('revision', `the head is revision ${file.revision}`);
  const env = exportEnv(ctx.db, ctx.deps, ctx.orgId, file.file_id, ctx.principal.scopes);
  const out = await kindContent(file.kind)!.exportAs(ctx.db, ctx.orgId, file.file_id, p.format, p.revision, env);
  const up = await ctx.deps.blobs.upload({
    orgId: ctx.orgId,
    principalId: ctx.principal.id,
    body: Readable.from([out.bytes]),
    contentType: out.contentType,
    madeHere: true,
  });
  return { sha256: up.sha256, size: up.size, contentType: out.contentType };
}

/** The record kind of an export's signed URL (rec=export:exp_…). */
export const EXPORT_RECORD = 'export';

/**
 * Whether a download of export `record.id` may still be served (a signed URL, GET /api/v1/blobs): the export
 * exists with these bytes, its file is neither purged nor in the trash, and the principal it was issued to is
 * active and may still read the file (a revoked grant, a restricted folder, an archived member: refused).
 */
export const exportServable: SignedRecordCheck = async (q, orgId, record, sha256, now) => {
  if (!record.principalId) return false;
  const [row] = await q.query<{ file_id: string; sha256: string }>(
    'SELECT file_id, sha256 FROM file_exports WHERE org_id = $1 AND export_id = $2 AND created_by = $3',
    [orgId, record.id, record.principalId],
  );
  if (!row || row.sha256 !== sha256) return false;
  // The requester as a caller: active, and admin while it still holds a live admin key (as callerOf reads a key).
  const who = await activeWithAdmin(q, orgId, record.principalId);
  if (!who) return false;
  try {
    // A grant's expiry is business time (the runtime's clock), as every handler reads it.
    const { file } = await fileAccess(q, orgId, row.file_id, { id: record.principalId, admin: who.admin }, 'viewer', { now });
    return file.status === 'active';
  } catch (err) {
    if (err instanceof ApiError && (err.code === 'NOT_FOUND' || err.code === 'FORBIDDEN_SCOPE')) return false;
    throw err;
  }
};

export const exportRequest = handler(
  c.exportRequest,
  async (ctx, p, rendered: Rendered | undefined) => {
    const now = ctx.deps.clock.now();
    const caller = callerOf(ctx.principal);
    const { file } = await fileAccess(ctx.q, ctx.orgId, p.fileId, caller, 'viewer', { now });
    checkFormat(file, p.format);
    const exportId = newId('exp');
    let bytes: Rendered;
    let revision = p.revision ?? Number(file.revision);
    if (file.kind === 'upload') {
      const [v] = await ctx.q.query<{ sha256: string; size_bytes: string | number; content_type: string }>(
        'SELECT sha256, size_bytes, content_type FROM file_versions WHERE org_id = $1 AND file_id = $2 AND version = $3',
        [ctx.orgId, file.file_id, revision],
      );
      if (!v) throw badRequest('revision', `upload ${file.file_id} has versions 1 to ${file.revision}`);
      bytes = { sha256: v.sha256, size: Number(v.size_bytes), contentType: v.content_type };
    } else {
      if (!rendered) throw new Error('exportRequest: a native file was not rendered');
      bytes = rendered;
      await referenceBlob(ctx.q as TxQueryable, { orgId: ctx.orgId, sha256: bytes.sha256, holder: exportId, by: caller.id });
    }
    const row = one(
      await ctx.q.query<ExportRow>(
        `INSERT INTO file_exports (org_id, export_id, file_id, format, revision, sha256, size_bytes, content_type, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${EXPORT_COLUMNS}`,
        [ctx.orgId, exportId, file.file_id, p.format, revision, bytes.sha256, bytes.size, bytes.contentType, caller.id, now.toISOString()],
      ),
    );
    revision = Number(row.revision);
    // Bound to this export and its requester: each download checks both again (exportServable).
    const signed = ctx.deps.blobs.signedPath(ctx.orgId, bytes.sha256, {
      ttlMs: EXPORT_URL_TTL_MS,
      record: { kind: EXPORT_RECORD, id: exportId, principalId: caller.id },
    });
    await ctx.emit('files.export.create', exportId, {
      exportId,
      fileId: file.file_id,
      kind: file.kind,
      format: p.format,
      revision,
      sha256: bytes.sha256,
      sizeBytes: bytes.size,
    });
    return { export: toExport(row), url: `${ctx.deps.config.publicUrl}${signed.path}`, expiresAt: signed.expiresAt };
  },
  { prepare: render },
);
