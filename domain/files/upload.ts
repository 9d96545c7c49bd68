import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { badRequest } from '../../protocol/errors.js';
import { drive as c, MAX_INLINE_UPLOAD_BYTES } from '../../protocol/methods/files/drive.js';
import { one, type Queryable, type TxQueryable } from '../../db/types.js';
import { referenceBlob, uploadedBlob, type BlobService } from '../../blobs/index.js';
import { S3_MAX_BLOB_BYTES } from '../../blobs/config.js';
import { sniffedType } from '../../blobs/sniff.js';
import type { Logger } from '../core/deps.js';
import type { PrepareCtx } from '../core/handler.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { callerOf, FILE_COLUMNS, type FileRow } from './access.js';
import { activeFile, boundText, eventIds, fileView, filesFor, insertFile, targetFolder } from './model.js';
import { documentText, readsText } from './text/index.js';

/*
 * Uploads: bytes the caller PUT to /api/v1/blobs (or sent inline, at most 750 KiB: the API's 1 MiB params bound), registered as a file or as a new
 * version of one. Each version holds its blob (holder fil_…#v<n>) until the file is purged. The type is sniffed from
 * the bytes (file-type), never taken from the name; PDF, Office and RTF text is extracted (text/) for search,
 * bounded in size and time, and never fatal. Both happen before the call's transaction (prepare), so a slow parse
 * holds no database connection.
 */

/** Uploads are at most 100 MiB on disk and 5 GiB on S3, and never above BLOB_MAX_BYTES. */
export const DISK_MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
export const uploadLimit = (blobs: BlobService) => Math.min(blobs.config.maxBytes, blobs.config.s3 ? S3_MAX_BLOB_BYTES : DISK_MAX_UPLOAD_BYTES);

/** Text is extracted from documents up to this size, within this time. */
export const MAX_EXTRACT_BYTES = 32 * 1024 * 1024;
const EXTRACT_TIMEOUT_MS = 20_000;
const SNIFF_BYTES = 4100;

export interface UploadedBlob {
  sha256: string;
  size: number;
  contentType: string;
}

export interface PreparedUpload extends UploadedBlob {
  text: string | null;
}

const SHA = /^[0-9a-f]{64}$/;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Where the bytes come from (sha256+sizeBytes of the caller's PUT, or contentBase64), checked and described:
 * size, sniffed type and extracted text. `field` names the object in errors (params: its own fields, content: content.sha256…).
 */
export async function prepareUpload(ctx: PrepareCtx, src: unknown, field: string): Promise<PreparedUpload> {
  if (!isRecord(src)) throw badRequest(field, 'an object {sha256, sizeBytes} or {contentBase64}');
  const at = (name: string) => (field === 'params' ? name : `${field}.${name}`);
  const unknown = Object.keys(src).filter((k) => !['sha256', 'sizeBytes', 'contentBase64'].includes(k) && field !== 'params');
  if (unknown.length) throw badRequest(at(unknown[0].slice(0, 40)), 'unknown field');
  const blobs = ctx.deps.blobs;
  const limit = uploadLimit(blobs);
  let blob: UploadedBlob;
  if (src.contentBase64 !== undefined) {
    if (src.sha256 !== undefined || src.sizeBytes !== undefined)
      throw badRequest(at('contentBase64'), 'give either contentBase64 or sha256 with sizeBytes, not both');
    if (typeof src.contentBase64 !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(src.contentBase64)) throw badRequest(at('contentBase64'), 'must be base64');
    const bytes = Buffer.from(src.contentBase64, 'base64');
    if (bytes.length > MAX_INLINE_UPLOAD_BYTES) throw badRequest(at('contentBase64'), 'at most 750 KiB inline: PUT larger files to /api/v1/blobs');
    const up = await blobs.upload({ orgId: ctx.orgId, principalId: ctx.principal.id, body: Readable.from([bytes]), contentType: 'application/octet-stream' });
    blob = { sha256: up.sha256, size: up.size, contentType: up.contentType };
  } else {
    if (typeof src.sha256 !== 'string' || !SHA.test(src.sha256))
      throw badRequest(at('sha256'), 'required: the SHA-256 (64 lowercase hex digits) of a blob you PUT to /api/v1/blobs, or contentBase64');
    const size = src.sizeBytes;
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
      throw badRequest(at('sizeBytes'), 'required with sha256: the blob’s size in bytes');
    if (size > limit) throw badRequest(at('sizeBytes'), `uploads are at most ${limit} bytes on this server`);
    const row = await uploadedBlob(ctx.db, { orgId: ctx.orgId, sha256: src.sha256, principalId: ctx.principal.id });
    if (!row) throw badRequest(at('sha256'), `no blob ${src.sha256} uploaded by you; PUT /api/v1/blobs first`);
    if (row.size !== size) throw badRequest(at('sha256'), `blob ${src.sha256} has ${row.size} bytes, not ${size}: the hash or the size is wrong`);
    blob = row;
  }
  if (blob.size > limit) throw badRequest(at('sizeBytes'), `uploads are at most ${limit} bytes on this server`);
  return describeBytes(blobs, ctx.orgId, blob, ctx.deps.log);
}

async function collect(stream: Readable, max: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of stream) {
    parts.push(chunk as Buffer);
    n += (chunk as Buffer).length;
    if (n >= max) break;
  }
  stream.destroy();
  return Buffer.concat(parts).subarray(0, max);
}

/** Sniff the type from the first bytes, then extract searchable text where the type allows. */
export async function describeBytes(blobs: BlobService, orgId: string, blob: UploadedBlob, log: Logger): Promise<PreparedUpload> {
  if (blob.size === 0) return { ...blob, contentType: 'application/octet-stream', text: null };
  const head = await collect(await blobs.store.read(orgId, blob.sha256, { start: 0, end: Math.min(blob.size, SNIFF_BYTES) - 1 }), SNIFF_BYTES);
  const { fileTypeFromBuffer } = await import('file-type');
  const sniffed = await fileTypeFromBuffer(head).catch(() => undefined);
  if (sniffed) {
    let text: string | null = null;
    if (readsText(sniffed.mime) && blob.size <= MAX_EXTRACT_BYTES) {
      text = await extractText(await collect(await blobs.store.read(orgId, blob.sha256), blob.size), sniffed.mime, log, { orgId, sha256: blob.sha256 });
    }
    return { ...blob, contentType: sniffed.mime, text };
  }
  // No magic number: text if the head is UTF-8 without NUL (typed as the blob was: an inert text type, never HTML or
  // SVG; blobs/sniff.ts), else opaque bytes.
  const cut = head.length === SNIFF_BYTES ? trimPartial(head) : head;
  if (cut.includes(0) || !isUtf8(cut)) return { ...blob, contentType: 'application/octet-stream', text: null };
  const contentType = await sniffedType(cut, true, blob.contentType);
  const body = await collect(await blobs.store.read(orgId, blob.sha256), Math.min(blob.size, 4 * 200_000));
  return { ...blob, contentType, text: boundText(body.toString('utf8')) };
}

/** Drop a UTF-8 sequence cut at the end of a prefix. */
function trimPartial(b: Buffer): Buffer {
  let i = b.length - 1;
  while (i >= 0 && i >= b.length - 4 && (b[i] & 0xc0) === 0x80) i--;
  return i >= 0 && b[i] >= 0xc0 ? b.subarray(0, i) : b;
}

async function extractText(bytes: Buffer, mime: string, log: Logger, ids: { orgId: string; sha256: string }): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const work = documentText(bytes, mime);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('extraction timed out')), EXTRACT_TIMEOUT_MS);
    });
    return boundText(await Promise.race([work, timeout]));
  } catch (err) {
    // Never fatal: the file is kept and found by its name. Ids only in the log.
    log.warn({ ...ids, err: { name: (err as Error).name } }, 'upload text not extracted');
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** The file's version `version` holds the blob (holder fil_…#v<n>) and is recorded. */
export async function holdUpload(
  q: Queryable,
  orgId: string,
  fileId: string,
  version: number,
  blob: UploadedBlob,
  by: string,
  at: string,
  claimField?: string,
): Promise<void> {
  // With claimField the caller claims the bytes as its own upload; without, it copies a file it may read.
  await referenceBlob(q as TxQueryable, {
    orgId,
    sha256: blob.sha256,
    holder: `${fileId}#v${version}`,
    by,
    ...(claimField ? { uploadedBy: by, field: claimField } : {}),
  });
  await q.query(
    `INSERT INTO file_versions (org_id, file_id, version, sha256, size_bytes, content_type, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [orgId, fileId, version, blob.sha256, blob.size, blob.contentType, by, at],
  );
}

/** What uploadRegister refuses from its params alone, before any byte is stored. */
function checkRegister(p: { fileId?: string; name?: string; parentId?: string }): void {
  if (p.fileId === undefined && p.name === undefined) throw badRequest('name', 'required for a new upload (or give fileId for a new version)');
  if (p.fileId !== undefined && p.parentId !== undefined) throw badRequest('parentId', 'a new version stays where the file is: move it with files.move');
}

export const uploadRegister = handler(
  c.uploadRegister,
  async (ctx, p, up: PreparedUpload) => {
    const now = ctx.deps.clock.now();
    const at = now.toISOString();
    const caller = callerOf(ctx.principal);
    checkRegister(p);
    if (p.fileId === undefined) {
      const parent = p.parentId === undefined ? null : await targetFolder(ctx.q, ctx.orgId, p.parentId, caller, now);
      const fileId = newId('fil');
      const row = await insertFile(ctx.q, ctx.orgId, {
        fileId,
        kind: 'upload',
        name: p.name ?? '',
        parent,
        restricted: false,
        by: caller.id,
        at,
        revision: 1,
        sizeBytes: up.size,
        sha256: up.sha256,
        contentType: up.contentType,
        bodyText: up.text,
      });
      await holdUpload(ctx.q, ctx.orgId, fileId, 1, up, caller.id, at, 'sha256');
      const file = (await filesFor(ctx.q, ctx.orgId, caller.id, [row]))[0];
      await ctx.emit('files.upload.register', fileId, { ...eventIds(row), version: 1, contentType: up.contentType, newFile: true });
      return { file, changed: true };
    }
    const { file } = await activeFile(ctx.q, ctx.orgId, p.fileId, caller, 'editor', now);
    if (file.kind !== 'upload') throw badRequest('fileId', `${p.fileId} is a ${file.kind}: only uploads take new versions`);
    const renamed = p.name !== undefined && p.name !== file.name;
    if (file.sha256 === up.sha256) {
      // The same bytes again: no new version (a new name is still applied).
      if (renamed)
        await ctx.q.query('UPDATE files SET name = $3, updated_by = $4, updated_at = $5 WHERE org_id = $1 AND file_id = $2', [
          ctx.orgId,
          p.fileId,
          p.name,
          caller.id,
          at,
        ]);
      const view = await fileView(ctx.q, ctx.orgId, caller.id, p.fileId);
      await ctx.emit('files.upload.register', p.fileId, {
        ...eventIds(file),
        version: file.revision,
        contentType: file.content_type,
        newFile: false,
        ...(renamed ? { renamed: true } : { noop: true }),
      });
      return { file: view, changed: renamed };
    }
    const version = Number(file.revision) + 1;
    await holdUpload(ctx.q, ctx.orgId, p.fileId, version, up, caller.id, at, 'sha256');
    const row = one(
      await ctx.q.query<FileRow>(
        `UPDATE files AS f SET revision = $3, sha256 = $4, size_bytes = $5, content_type = $6, body_text = $7, name = coalesce($8, name), updated_by = $9, updated_at = $10
        WHERE f.org_id = $1 AND f.file_id = $2 RETURNING ${FILE_COLUMNS}`,
        [ctx.orgId, p.fileId, version, up.sha256, up.size, up.contentType, boundText(up.text), p.name ?? null, caller.id, at],
      ),
    );
    const view = (await filesFor(ctx.q, ctx.orgId, caller.id, [row]))[0];
    await ctx.emit('files.upload.register', p.fileId, { ...eventIds(row), version, previousSha256: file.sha256, contentType: up.contentType, newFile: false });
    return { file: view, changed: true };
  },
  {
    prepare: (ctx, p) => {
      checkRegister(p);
      return prepareUpload(ctx, p, 'params');
    },
  },
);
