import { badRequest, conflict } from '../../../protocol/errors.js';
import { MAX_MESSAGE_BYTES } from '../../../protocol/methods/email/shapes.js';
import type { Queryable, TxQueryable } from '../../../db/types.js';
import { referenceBlob, releaseHolder } from '../../../blobs/index.js';
import type { PrepareCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';

/*
 * Files attached to outgoing mail are workspace uploads. Before the send's transaction (a handler's prepare step:
 * reads as the caller, which on PGlite cannot run inside it) each is read with files.get, so the caller's access
 * and the upload's bytes (its blob) are known; in the transaction the message takes them as its attachments and
 * holds their blobs, so what leaves is what was sent, even if the file changes later.
 */

export interface OutgoingFile {
  fileId: string;
  name: string;
  sha256: string;
  contentType: string;
  size: number;
}

/** Base64 grows bytes by a third: this much of files still fits a 25 MB message. */
const MAX_FILE_BYTES = Math.floor((MAX_MESSAGE_BYTES * 3) / 4) - 512 * 1024;

interface FileGot {
  file: { id: string; kind: string; name: string; sha256: string | null; contentType: string | null; sizeBytes: number; status: string };
}

/** The files as the caller may read them (NOT_FOUND otherwise); only uploads can be attached. */
export async function readFiles(ctx: PrepareCtx, fileIds: readonly string[], field = 'fileIds'): Promise<OutgoingFile[]> {
  const out: OutgoingFile[] = [];
  for (const [i, fileId] of fileIds.entries()) {
    const { file } = (await ctx.readAs('files.get', { fileId })) as FileGot;
    if (file.kind !== 'upload' || !file.sha256) {
      throw badRequest(`${field}.${i}`, `${fileId} is a ${file.kind}: only uploaded files are attached to mail (export it to a file first)`);
    }
    if (file.status !== 'active') throw badRequest(`${field}.${i}`, `${fileId} is ${file.status}: restore it first`);
    out.push({ fileId, name: file.name, sha256: file.sha256, contentType: file.contentType ?? 'application/octet-stream', size: Number(file.sizeBytes) });
  }
  const total = out.reduce((n, f) => n + f.size, 0);
  if (total > MAX_FILE_BYTES) throw badRequest(field, `the files come to ${total} bytes; a message carries at most ${MAX_FILE_BYTES} bytes of files`);
  return out;
}

/**
 * The message's attachments become exactly `files` (read before the transaction): the rows, and the blobs held by
 * the message. CONFLICT when the message now names other files than were read (it changed meanwhile).
 */
export async function takeAttachments(
  q: Queryable,
  p: { orgId: string; messageId: string; fileIds: readonly string[]; files: readonly OutgoingFile[]; by: string },
): Promise<void> {
  const read = new Map(p.files.map((f) => [f.fileId, f]));
  if (p.fileIds.some((id) => !read.has(id))) {
    throw conflict(`message ${p.messageId} names other files than when the call began (it changed meanwhile): send it again`);
  }
  await q.query('DELETE FROM email_attachments WHERE org_id = $1 AND message_id = $2', [p.orgId, p.messageId]);
  await releaseHolder(q as TxQueryable, { orgId: p.orgId, holder: p.messageId });
  for (const [position, fileId] of p.fileIds.entries()) {
    const f = read.get(fileId)!;
    await referenceBlob(q as TxQueryable, { orgId: p.orgId, sha256: f.sha256, holder: p.messageId, by: p.by });
    await q.query(
      `INSERT INTO email_attachments (org_id, attachment_id, message_id, position, sha256, filename, content_type, size_bytes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [p.orgId, newId('eatt'), p.messageId, position, f.sha256, f.name.slice(0, 255), f.contentType, f.size],
    );
  }
  await q.query('UPDATE email_messages SET has_attachments = $3 WHERE org_id = $1 AND message_id = $2', [p.orgId, p.messageId, p.fileIds.length > 0]);
}

export interface AttachmentRow {
  attachment_id: string;
  sha256: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  content_id: string | null;
  inline: boolean;
}

export async function attachmentsOf(q: Queryable, orgId: string, messageId: string): Promise<AttachmentRow[]> {
  return q.query<AttachmentRow>(
    `SELECT attachment_id, sha256, filename, content_type, size_bytes, content_id, inline FROM email_attachments
      WHERE org_id = $1 AND message_id = $2 ORDER BY position`,
    [orgId, messageId],
  );
}
